import { JsonLogger, NestStartupLogger } from './logger';

function collect(format: 'json' | 'text' = 'json', level: 'info' | 'debug' | 'trace' = 'info') {
  const lines: string[] = [];
  const logger = JsonLogger.create({ format, level, destination: { write: (l: string) => void lines.push(l) } });
  return { logger, lines, records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('JsonLogger', () => {
  it('writes one JSON object per line with level, time, msg and Nest context as logger', () => {
    const { logger, lines, records } = collect();
    logger.log('hello', 'InstanceLoader');
    expect(lines).toHaveLength(1);
    expect(lines[0].endsWith('\n')).toBe(true);
    const [r] = records();
    expect(r).toMatchObject({ level: 'info', msg: 'hello', logger: 'InstanceLoader' });
    expect(typeof r.time).toBe('string');
  });

  it('binds controller, reconcileID and object on a child', () => {
    const { logger, records } = collect();
    logger
      .child({ controller: 'machineset', reconcileID: 'abc-1', object: { namespace: 'ns', name: 'ms-1' } })
      .info('reconciling', { step: 'scale' });
    expect(records()[0]).toMatchObject({
      controller: 'machineset',
      reconcileID: 'abc-1',
      object: { namespace: 'ns', name: 'ms-1' },
      step: 'scale',
      msg: 'reconciling',
    });
  });

  it('error() keeps Nest stack and context, Error objects are serialised', () => {
    const { logger, records } = collect();
    logger.error('boom', 'Error: boom\n    at x', 'ExceptionHandler');
    logger.error(new Error('bad thing'));
    const [a, b] = records();
    expect(a).toMatchObject({
      level: 'error',
      msg: 'boom',
      stack: 'Error: boom\n    at x',
      logger: 'ExceptionHandler',
    });
    expect(b).toMatchObject({ level: 'error', msg: 'bad thing' });
    expect((b.err as { message: string }).message).toBe('bad thing');
  });

  it('honours the level', () => {
    const info = collect('json', 'info');
    info.logger.debug('hidden');
    info.logger.verbose('hidden too');
    expect(info.lines).toHaveLength(0);
    const trace = collect('json', 'trace');
    trace.logger.debug('shown');
    trace.logger.verbose('shown too');
    expect(trace.records().map((r) => r.level)).toEqual(['debug', 'trace']);
  });

  it('text format renders a readable line with fields', () => {
    const { logger, lines } = collect('text');
    logger.child({ controller: 'kcp' }).log('scaled up', 'KCP');
    expect(lines[0]).toMatch(/^\S+ INFO \[KCP\] scaled up controller="kcp"\n$/);
  });
});

describe('NestStartupLogger', () => {
  it("puts Nest's start-up lines and its ExceptionHandler line at debug; everything else keeps its level", () => {
    const { logger, records } = collect('json', 'debug');
    const nest = new NestStartupLogger(logger);
    nest.log('KcpControllerModule dependencies initialized', 'InstanceLoader');
    nest.error('ApiAccessError: refused', 'stack', 'ExceptionHandler');
    nest.warn('list/watch failed', 'SharedInformer(Machine)');
    nest.error('reconcile failed', 'Controller(machine)');
    expect(records().map((r) => [r.level, r.logger])).toEqual([
      ['debug', 'InstanceLoader'],
      ['debug', 'ExceptionHandler'],
      ['warn', 'SharedInformer(Machine)'],
      ['error', 'Controller(machine)'],
    ]);
  });
});

describe('JsonLogger: controller reconcile lines', () => {
  const reconcileFields = {
    controller: 'machine',
    controllerGroup: 'cluster.x-k8s.io',
    controllerKind: 'Machine',
    Machine: { name: 'm1', namespace: 'default' },
    namespace: 'default',
    name: 'm1',
    reconcileID: '7c1f7e0e-0000-4000-8000-000000000001',
  };

  it("writes a Nest Logger call's fields object as top-level keys of one record (the way FieldLogger calls it)", () => {
    const { logger, lines, records } = collect();
    // Nest's Logger('Controller(machine)').error(msg, fields) reaches the app logger as (msg, fields, context).
    logger.error('Reconciler error', { ...reconcileFields, err: 'boom' }, 'Controller(machine)');
    expect(lines).toHaveLength(1);
    expect(records()[0]).toEqual({
      level: 'error',
      time: expect.any(String),
      logger: 'Controller(machine)',
      ...reconcileFields,
      err: 'boom',
      msg: 'Reconciler error',
    });
  });

  it('folds identical records (apart from reconcileID) into one summary, also in text format', () => {
    for (const format of ['json', 'text'] as const) {
      const { logger, lines } = collect(format);
      for (const id of ['a', 'b', 'c'])
        logger.log('waiting', { ...reconcileFields, reconcileID: id }, 'Controller(machine)');
      logger.log('done', 'Controller(machine)');
      expect(lines).toHaveLength(3);
      if (format === 'json')
        expect(JSON.parse(lines[1])).toMatchObject({ msg: 'waiting', reconcileID: 'c', repeated: 2 });
      else
        expect(lines[1]).toMatch(/ INFO \[Controller\(machine\)\] waiting \(repeated 2 times\) controller="machine" /);
    }
  });

  it('prints every record with repeatWindowMs 0', () => {
    const lines: string[] = [];
    const logger = JsonLogger.create({ repeatWindowMs: 0, destination: { write: (l: string) => void lines.push(l) } });
    logger.log('same');
    logger.log('same');
    expect(lines).toHaveLength(2);
  });

  it('text format keeps the reconcile fields readable on one line', () => {
    const { logger, lines } = collect('text');
    logger.error('Reconciler error', { ...reconcileFields, err: 'boom' }, 'Controller(machine)');
    expect(lines).toEqual([
      expect.stringMatching(
        /^\S+ ERROR \[Controller\(machine\)\] Reconciler error controller="machine" controllerGroup="cluster\.x-k8s\.io" controllerKind="Machine" Machine=\{"name":"m1","namespace":"default"\} namespace="default" name="m1" reconcileID="[^"]+" err="boom"\n$/,
      ),
    ]);
  });
});
