import { MEDIA_EXTENSIONS, MEDIA_KINDS } from '../../../src/providers/whatsapp-cloud/media-types';

// What the composer's file picker offers and takes: the server's own list of media types (shared
// module), and the file endings that stand for them.

/** The picker's `accept`: the accepted types and their file endings. */
export const ATTACH_ACCEPT = [...Object.keys(MEDIA_KINDS), ...Object.values(MEDIA_EXTENSIONS).flat()].join(
  ',',
);

const endingOf = (file: File) => {
  const dot = file.name.lastIndexOf('.');
  return dot > 0 ? file.name.slice(dot).toLowerCase() : '';
};

/**
 * The accepted type of a file: the browser's, else the one its ending stands for (browsers report
 * some differently, e.g. `.m4a` as `audio/x-m4a`); null when the platform cannot send it.
 */
export function mediaType(file: File): string | null {
  const mime = file.type.split(';')[0]?.trim().toLowerCase() ?? '';
  if (Object.hasOwn(MEDIA_KINDS, mime)) return mime;
  const ending = endingOf(file);
  return Object.keys(MEDIA_EXTENSIONS).find((m) => MEDIA_EXTENSIONS[m]?.includes(ending)) ?? null;
}

/** How to name a file that cannot be sent (its ending, else its type or name); null when it can. */
export function refusedAs(file: File): string | null {
  return mediaType(file) === null ? endingOf(file) || file.type || file.name : null;
}
