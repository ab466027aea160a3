import { useEffect, useState } from 'react';
import { get } from '../api';
import type { Bot } from '../models';
import { useGateway } from '../session';

// The account's bots by id, for naming the bot that holds a conversation or ended its hold: read once
// (listBots) and again when a bot this tab has not seen yet is named; renamed live (`bot.update`).

let cache: Promise<Map<string, string>> | null = null;

function load(): Promise<Map<string, string>> {
  cache ??= get<Bot[]>('/api/bots')
    .then((bots) => new Map(bots.map((b) => [b.id, b.name])))
    .catch(() => {
      cache = null;
      return new Map<string, string>();
    });
  return cache;
}

/** The bot's name, or null while unknown (a deleted bot stays unnamed). */
export function useBotName(id: string | null | undefined): string | null {
  const [name, setName] = useState<string | null>(null);
  const { gateway } = useGateway();
  useEffect(() => {
    if (!gateway || !id) return;
    return gateway.on('bot.update', (e) => {
      cache = null;
      if (e.data.bot.id === id) setName(e.data.bot.name);
    });
  }, [gateway, id]);
  useEffect(() => {
    if (!id) return setName(null);
    let live = true;
    void load().then(async (names) => {
      let found = names.get(id);
      if (found === undefined) {
        cache = null;
        found = (await load()).get(id);
      }
      if (live) setName(found ?? null);
    });
    return () => {
      live = false;
    };
  }, [id]);
  return name;
}
