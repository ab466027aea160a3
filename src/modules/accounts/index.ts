// The accounts module's public entry: what other modules, the gateway and the wiring may use of it.
export { AccountsRepo } from './accounts.repo.js';
export { AccountsService } from './accounts.service.js';
