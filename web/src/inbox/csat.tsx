import { useEffect, useState } from 'react';
import { get } from '../api';
import { useI18n } from '../i18n';
import type { Chat, ChatCsat } from '../models';
import { useGateway } from '../session';

/**
 * The customer's rating of a closed conversation (getChatCsat), shown in its header; it arrives live
 * (`chat.csat`) when the customer answers the flow's question after the close.
 */
export function CsatBadge(props: { chat: Chat }) {
  const { t } = useI18n();
  const { gateway } = useGateway();
  const [score, setScore] = useState<number | null>(null);
  const { id, status } = props.chat;
  useEffect(() => {
    setScore(null);
    if (status !== 'closed') return;
    let live = true;
    get<ChatCsat>(`/api/chats/${id}/csat`)
      .then((r) => live && setScore(r.csat?.score ?? null))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [id, status]);
  useEffect(() => {
    if (!gateway) return;
    return gateway.on('chat.csat', (e) => {
      if (e.data.chat.id === id) setScore(e.data.csat.score);
    });
  }, [gateway, id]);
  if (score === null) return null;
  return (
    <span className="meta-extra" data-testid="chat-csat">
      {t('csat.label')}: <strong>{t('csat.score', { score })}</strong>
    </span>
  );
}
