export * from './access.js';
export * from './api.js';
export * from './chat.js';
export * from './permissions.js';
export * from './routes.js';
export * from './socket.js';
export * from './strings.js';
export * from './text.js';
