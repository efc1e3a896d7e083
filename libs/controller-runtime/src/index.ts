export * from './client/types';
export * from './client/errors';
