export * from './client/types';
export * from './client/errors';
export * from './features';
