import { conflict, notFound } from '../../http/errors.js';
import { toChat } from './chats.presenter.js';
import type { ChatRow } from './chats.repo.js';
import type { ChatT } from './chats.schemas.js';
import { Text } from '../../http/language.js';

// The contract's sentence has no accents; the console, asking for pt-BR, reads them.
export const CHAT_BUSY = new Text('O chat ja esta sendo processado.', {
  'pt-BR': 'O chat já está sendo processado.',
  en: 'The chat is already being processed.',
});

/** A lock taken with NOWAIT found held, or a wait for it outlasted the transaction's lock_timeout. */
export const isLockUnavailable = (err: unknown) => (err as { code?: string }).code === '55P03';

/**
 * A change of a chat made under its row lock, as the API answers it: a chat another operation holds
 * is 409 (CHAT_BUSY), one gone (or never visible) is 404, else the chat as read under the lock.
 */
export async function heldChange(run: () => Promise<ChatRow | undefined>): Promise<ChatT> {
  let row: ChatRow | undefined;
  try {
    row = await run();
  } catch (err) {
    if (isLockUnavailable(err)) throw conflict(CHAT_BUSY);
    throw err;
  }
  if (!row) throw notFound();
  return toChat(row);
}
