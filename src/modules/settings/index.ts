// The settings module's public entry: what other modules, the gateway and the wiring may use of it.
export { SettingsRepo } from './settings.repo.js';
