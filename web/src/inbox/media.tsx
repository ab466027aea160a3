import { useI18n } from '../i18n';
import { mediaOf, type Message } from '../models';

// A message's file: pictures, video and audio shown in place, documents as a download link, from
// GET /api/messages/:id/media (the session cookie goes along). While a customer's file is still being
// downloaded from the provider, or when it could not be, a chip says so.

const INLINE_KINDS = new Set(['image', 'sticker', 'video', 'audio']);

/** `1.2 MB`, `340 KB`, `12 B`. */
export function fileSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${bytes} B`;
}

function DocIcon() {
  return (
    <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">
      <path
        d="M14 2H6a2 2 0 0 0-2 2v16a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2V8zm0 2.5L17.5 8H14z"
        fill="currentColor"
        opacity="0.7"
      />
    </svg>
  );
}

export function MessageMedia(props: { m: Message }) {
  const { t } = useI18n();
  const { m } = props;
  const media = mediaOf(m);
  if (!media) return null;
  const kind = media.kind ?? m.type;
  const name = media.filename ?? `${kind}${media.mimetype ? ` · ${media.mimetype}` : ''}`;
  const url = `/api/messages/${encodeURIComponent(m.id)}/media`;
  const chip = (note?: string) => (
    <div className="msg-media" data-media-state={media.status ?? 'pending'}>
      <DocIcon />
      <span>{name}</span>
      {note && <span className="msg-media-note">{note}</span>}
    </div>
  );

  if (media.status === 'failed') return chip(t('media.failed'));
  if (media.status !== 'ready') {
    // Only a customer's file is ever downloaded; an older outgoing one kept no bytes to show.
    return chip(m.origin === 'contact' ? t('media.pending') : undefined);
  }
  if (INLINE_KINDS.has(kind)) {
    if (kind === 'video')
      return <video className="msg-media-view" src={url} controls preload="metadata" aria-label={name} />;
    if (kind === 'audio')
      return <audio className="msg-media-audio" src={url} controls preload="metadata" aria-label={name} />;
    const alt = media.caption ?? media.filename ?? t('media.image');
    return (
      <a
        className="msg-media-link"
        href={url}
        target="_blank"
        rel="noopener noreferrer"
        title={t('media.open', { name: alt })}
      >
        <img className="msg-media-view" src={url} alt={alt} loading="lazy" />
      </a>
    );
  }
  return (
    <a className="msg-media msg-media-doc" href={url} download={media.filename ?? ''}>
      <DocIcon />
      <span>{name}</span>
      <span className="msg-media-note">
        {media.size !== undefined ? `${fileSize(media.size)} · ` : ''}
        {t('media.download')}
      </span>
    </a>
  );
}
