// Lets notebooks import TypeScript from lib/ with no build step. Import this first,
// then load lib/ with dynamic import() so the loader is registered before it resolves.
import { register } from 'tsx/esm/api'

register()
