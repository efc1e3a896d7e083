export * from './controller';
export * from './status';
