export * from './gc';
