export {};
export * from './hooks';
