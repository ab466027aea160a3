// The notes module's public entry: what other modules, the gateway and the wiring may use of it.
export { NotesRepo } from './notes.repo.js';
export { notesRoutes } from './notes.routes.js';
export { NOTE_DELETE, NOTE_NEW, NOTE_UPDATE } from './notes.schemas.js';
export { NotesService } from './notes.service.js';
