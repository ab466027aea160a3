// The media module's public entry: what other modules, the gateway and the wiring may use of it.
export { type LoadedMediaBlob, MediaBlobsRepo, type NewMediaBlob } from './media-blobs.repo.js';
export { mediaDownloadWorker } from './media-download.worker.js';
export { type MediaStore, PostgresMediaStore } from './media-store.js';
export { MediaRepo } from './media.repo.js';
export { mediaRoutes } from './media.routes.js';
export { contentDisposition, MediaDownloader, MediaDownloads, MediaService } from './media.service.js';
