// The users module's public entry: what other modules, the gateway and the wiring may use of it.
export { toUser } from './users.presenter.js';
export { type UserAuthRow, UsersRepo } from './users.repo.js';
export { usersRoutes } from './users.routes.js';
export { UserSchema, type UserT } from './users.schemas.js';
export { USER_NOT_FOUND, UsersService } from './users.service.js';
