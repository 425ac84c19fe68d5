import { spawn } from 'node:child_process'

export interface ExecResult {
  code: number
  stdout: string
  stderr: string
}

export interface ExecOptions {
  cwd?: string
  env?: Record<string, string>
  timeoutMs?: number
  input?: string
}

/** Runs a command to completion and never throws for a non-zero exit (callers decide). */
export function exec(cmd: string, args: string[], opts: ExecOptions = {}): Promise<ExecResult> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, {
      cwd: opts.cwd,
      env: { ...process.env, ...opts.env },
      stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      timeout: opts.timeoutMs,
    })
    let stdout = ''
    let stderr = ''
    child.stdout!.on('data', (d: Buffer) => (stdout += d))
    child.stderr!.on('data', (d: Buffer) => (stderr += d))
    if (opts.input !== undefined) child.stdin!.end(opts.input)
    child.on('error', (e: NodeJS.ErrnoException) => resolve({ code: e.code === 'ENOENT' ? 127 : 1, stdout, stderr: stderr + e.message }))
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr }))
  })
}

/** The last non-empty line of a command's stderr, for one-line error messages. */
export function lastLine(text: string): string {
  return text.trim().split('\n').filter(Boolean).at(-1)?.trim() ?? ''
}
