import { UPLOAD_FILE_TYPES, UPLOAD_IMAGE_TYPES } from '@parley/protocol';

export const UPLOAD_MAX_BYTES = 10 * 1024 * 1024;
export const IMAGE_TYPES = UPLOAD_IMAGE_TYPES;
export const FILE_TYPES = UPLOAD_FILE_TYPES;
