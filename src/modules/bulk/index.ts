// The bulk module's public entry: actions on a selection of chats (docs/adr/0079).
export { bulkRoutes } from './bulk.routes.js';
export { BULK_NOT_YOURS, BulkService, NO_LABEL_CHANGE } from './bulk.service.js';
export { MAX_BULK_CHATS } from './bulk.schemas.js';
