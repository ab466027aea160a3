import type { UserActor } from '../../access/actors.js';
import { requirePermission } from '../../access/guards.js';
import { SharedReads } from '../../lib/shared-reads.js';
import type { TeamsRepo } from '../teams/index.js';
import { buildBoard, type BoardScope } from './board.js';
import type { BoardRepo, BoardSnapshot } from './board.repo.js';
import type { LiveBoardT } from './board.schemas.js';

/** The supervisors' live board (docs/adr/0090-live-board.md). */
export class BoardService {
  /**
   * Every board of an account is built from one snapshot of the account: supervisors refetching at
   * once after the same event share its statement (at most two at a time per account and node), and
   * each still gets figures read after it asked (`SharedReads`).
   */
  private readonly snapshots = new SharedReads<BoardSnapshot>();

  constructor(
    private readonly repo: BoardRepo,
    private readonly teams: TeamsRepo,
  ) {}

  /** Admins (`chats:supervise`) see every team; supervisors (`chats:supervise_team`) their own; others 403. */
  async get(actor: UserActor): Promise<LiveBoardT> {
    const scope = await this.scopeOf(actor);
    const snap = await this.snapshots.read(actor.accountId, () => this.repo.snapshot(actor.accountId));
    return buildBoard(snap, scope);
  }

  private async scopeOf(actor: UserActor): Promise<BoardScope> {
    if (actor.permissions.has('chats:supervise')) return 'account';
    requirePermission(actor, 'chats:supervise_team');
    return new Set(await this.teams.teamsOf(actor.userId));
  }
}
