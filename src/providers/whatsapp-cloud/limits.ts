import type { MediaKind, OutboundLimits } from '../types.js';
import { MEDIA_KINDS } from './media-types.js';

const MB = 1024 * 1024;

/** What WhatsApp takes in a message (Meta's documented limits; stickers get the animated limit). */
export const WHATSAPP_LIMITS: OutboundLimits = {
  mediaTypes: MEDIA_KINDS as Readonly<Record<string, MediaKind>>,
  mediaMaxBytes: {
    image: 5 * MB,
    video: 16 * MB,
    audio: 16 * MB,
    document: 100 * MB,
    sticker: 500 * 1024,
  },
  // Meta's limit for a static sticker; an animated one may reach mediaMaxBytes.sticker.
  staticStickerMaxBytes: 100 * 1024,
  textMaxLength: 4096,
  captionMaxLength: 1024,
};
