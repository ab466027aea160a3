// The labels module's public entry: what other modules, the gateway and the wiring may use of it.
export { LabelsRepo } from './labels.repo.js';
export { labelsRoutes } from './labels.routes.js';
export {
  CHAT_LABELS,
  CUSTOMER_LABELS,
  LABEL_CREATE,
  LABEL_DELETE,
  LABEL_UPDATE,
  LabelSchema,
  type LabelT,
} from './labels.schemas.js';
export { type ChatLabelChange, LABEL_NAME_TAKEN, LabelsService, UNKNOWN_LABELS } from './labels.service.js';
