import { pt } from '../../http/language.js';

/** What a supervisor's take-over of a conversation (ChatMovesService.takeOver) answers and records. */
export const TAKEOVER_FORBIDDEN = pt(
  'Somente um supervisor da equipe do chat ou um administrador pode assumi-lo',
  "Only a supervisor of the chat's team or an admin can take it over",
);
export const ALREADY_YOURS = pt('Você já é o atendente deste chat', 'You already attend this chat');
/** The reason code of a take-over: a transfer to the supervisor themself (activity line `takeover`). */
export const TAKEOVER_REASON = 'takeover';
