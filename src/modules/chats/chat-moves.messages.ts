import { pt } from '../../http/language.js';

/** What the chat moves (ChatMovesService) answer, and how long a transfer waits for a held chat. */

/** How long a transfer to a team waits for a chat another operation holds before answering 409. */
export const TEAM_TRANSFER_WAIT_MS = 2_000;

export const CHAT_CAPTURED = pt('O chat já foi capturado', 'The chat has already been captured');
export const CHAT_NOT_WAITING = pt(
  'Somente um chat na fila Espera ou Automação pode ser capturado',
  'Only a chat in the Waiting (Espera) or Automation (Automação) queue can be captured',
);
export const CHAT_CLOSED = pt('O chat está encerrado', 'The chat is closed');
export const CLOSE_FORBIDDEN = pt(
  'Somente o atendente do chat ou um supervisor pode encerrá-lo',
  "Only the chat's attendant or a supervisor can close it",
);
export const CHAT_NOT_CLOSED = pt('O chat já está aberto', 'The chat is already open');
export const OPEN_ELSEWHERE = pt(
  'O cliente já tem outra conversa aberta neste canal',
  'The customer already has another open conversation on this channel',
);
export const NO_ATTENDANT_FOR_QUEUE = pt(
  'Um chat sem atendente não pode ir para Em Atendimento; capture ou transfira o chat',
  'A chat without an attendant cannot move to the In service queue (Em Atendimento); capture or transfer it',
);
