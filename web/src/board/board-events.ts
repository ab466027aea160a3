// No imports, so the benchmark reads it too; the console's gateway.on() checks each is an event name.

/** Gateway events after which a figure of the live board may have changed (the console, and bench/board.ts). */
export const BOARD_EVENTS = [
  'chat.new',
  'chat.update',
  'chat.queue',
  'chat.capture',
  'chat.transfer',
  'chat.close',
  'chat.reopen',
  'chat.split',
  'chat.snoozed',
  'chat.unsnoozed',
  'chat.bot_released',
  'sla.breached',
  'user.availability',
  'team.assignment',
] as const;
