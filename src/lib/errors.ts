/** An error's message for a log line, whatever was thrown (pg-boss passes on copies of errors that are not always Error instances). */
export function errorText(err: unknown): string {
  const message = (err as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(err);
}
