import { countCompletions } from './manager-chaos';

describe('countCompletions', () => {
  it('counts UpdateMachine completion log lines per Machine', () => {
    const text = [
      '{"msg":"default/m-1: UpdateMachine hook completed: Extension completed updating Machine"}',
      '{"msg":"default/m-2: UpdateMachine hook completed"}',
      '{"msg":"default/m-1: UpdateMachine hook completed"}',
      '{"msg":"default/m-3: in-place update failed: no extensions registered for UpdateMachine hook"}',
    ].join('\n');
    expect([...countCompletions(text)]).toEqual([
      ['default/m-1', 2],
      ['default/m-2', 1],
    ]);
  });
});
