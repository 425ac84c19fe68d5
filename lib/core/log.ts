/** Side effects are passed in so tests can capture what a step prints. */
export interface Logger {
  info(line: string): void
  warn(line: string): void
  /** Overwrites the current terminal line (progress); a plain line when not a TTY. */
  progress(line: string): void
}

export function consoleLogger(stream: NodeJS.WriteStream = process.stderr, quiet = false): Logger {
  const tty = stream.isTTY === true
  let open = false
  const end = () => {
    if (open) stream.write('\n')
    open = false
  }
  return {
    info: (line) => {
      if (quiet) return
      end()
      stream.write(line + '\n')
    },
    warn: (line) => {
      end()
      stream.write(`warning: ${line}\n`)
    },
    progress: (line) => {
      if (quiet) return
      if (!tty) return void stream.write(line + '\n')
      stream.write(`\r\x1b[2K${line}`)
      open = true
    },
  }
}

/** A logger that records lines, for tests. */
export function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = []
  return {
    lines,
    info: (l) => void lines.push(l),
    warn: (l) => void lines.push(`warning: ${l}`),
    progress: (l) => void lines.push(l),
  }
}
