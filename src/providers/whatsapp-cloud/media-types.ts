// The files an agent (or the Channel API) may send as media: WhatsApp's accepted types, by kind, and
// the file name endings a file picker offers for them. Imported by the server's checks and by the
// console's file picker, so both always agree; no imports, so the web build can take it as it is.

export type MediaKindName = 'image' | 'video' | 'audio' | 'document' | 'sticker';

/** Media types WhatsApp accepts, by kind. */
export const MEDIA_KINDS: Readonly<Record<string, MediaKindName>> = {
  'image/jpeg': 'image',
  'image/png': 'image',
  'video/mp4': 'video',
  'video/3gpp': 'video',
  'audio/aac': 'audio',
  'audio/amr': 'audio',
  'audio/mpeg': 'audio',
  'audio/mp4': 'audio',
  'audio/ogg': 'audio',
  'text/plain': 'document',
  'application/pdf': 'document',
  'application/msword': 'document',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'document',
  'application/vnd.ms-excel': 'document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'document',
  'application/vnd.ms-powerpoint': 'document',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 'document',
  'image/webp': 'sticker',
};

/** File name endings of those types, for a picker's `accept` (browsers may not know every type). */
export const MEDIA_EXTENSIONS: Readonly<Record<string, readonly string[]>> = {
  'image/jpeg': ['.jpg', '.jpeg'],
  'image/png': ['.png'],
  'video/mp4': ['.mp4'],
  'video/3gpp': ['.3gp'],
  'audio/aac': ['.aac'],
  'audio/amr': ['.amr'],
  'audio/mpeg': ['.mp3'],
  'audio/mp4': ['.m4a'],
  'audio/ogg': ['.ogg', '.opus'],
  'text/plain': ['.txt'],
  'application/pdf': ['.pdf'],
  'application/msword': ['.doc'],
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': ['.docx'],
  'application/vnd.ms-excel': ['.xls'],
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': ['.xlsx'],
  'application/vnd.ms-powerpoint': ['.ppt'],
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': ['.pptx'],
  'image/webp': ['.webp'],
};
