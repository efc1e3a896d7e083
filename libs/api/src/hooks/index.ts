export * from './constants';
export * from './types';
export * from './patch';
export * from './dto';
export * from './validate';
