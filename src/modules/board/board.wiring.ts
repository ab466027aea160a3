import type { Db } from '../../db/index.js';
import type { TeamsRepo } from '../teams/index.js';
import { BoardRepo } from './board.repo.js';
import { BoardService } from './board.service.js';

/** The live board as the platform wires it (docs/adr/0090-live-board.md): one read service, no loop. */
export function createBoardServices(db: Db, repos: { teams: TeamsRepo }) {
  return { board: new BoardService(new BoardRepo(db), repos.teams) };
}
