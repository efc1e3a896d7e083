export * from './feature-gates';
export * from './feature-gates.module';
