import { useCallback, useEffect, useRef, useState } from 'react';
import { get } from '../api';
import type { LiveBoard } from '../models';
import { useGateway } from '../session';
import { BOARD_EVENTS } from './board-events';
import { coalescer } from './coalescer';

// The live board's data (docs/adr/0090-live-board.md): the snapshot `getLiveBoard` answers, read again
// after the gateway events that change a figure, at most once per `GAP_MS` and never two at a time —
// so a board costs the server a bounded number of reads whatever the event rate.

/** Least time between the starts of two reads. */
export const GAP_MS = 300;

export interface BoardData {
  board: LiveBoard | null;
  failed: boolean;
  /** Server time minus this browser's, from the last answer: the wait clocks count from the server's now. */
  skewMs: number;
}

export function useLiveBoard(): BoardData {
  const { gateway } = useGateway();
  const [data, setData] = useState<BoardData>({ board: null, failed: false, skewMs: 0 });
  const alive = useRef(true);
  const load = useCallback(async () => {
    try {
      const board = await get<LiveBoard>('/api/board');
      if (alive.current) setData({ board, failed: false, skewMs: Date.parse(board.at) - Date.now() });
    } catch {
      if (alive.current) setData((d) => ({ ...d, failed: true }));
    }
  }, []);
  useEffect(() => {
    alive.current = true;
    const reads = coalescer(load, GAP_MS);
    reads.poke();
    const offs = gateway
      ? [...BOARD_EVENTS.map((name) => gateway.on(name, reads.poke)), gateway.onResync(reads.poke)]
      : [];
    return () => {
      alive.current = false;
      reads.cancel();
      offs.forEach((off) => off());
    };
  }, [gateway, load]);
  return data;
}
