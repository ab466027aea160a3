// The board module's public entry: the supervisors' live board.
export { buildBoard, capacityOf, type BoardScope } from './board.js';
export { BoardRepo, type BoardSnapshot } from './board.repo.js';
export { boardRoutes } from './board.routes.js';
export { AT_RISK_MINUTES, LiveBoardSchema, type LiveBoardT } from './board.schemas.js';
export { BoardService } from './board.service.js';
export { createBoardServices } from './board.wiring.js';
