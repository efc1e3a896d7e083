import { countsDelta, samplesOf } from './metric-samples';

describe('samples of a metric in Prometheus text', () => {
  it('reads labels (escaped quotes too) and values of exactly that metric; HELP/TYPE and other metrics skipped', () => {
    const text = [
      '# HELP x_total A counter.',
      '# TYPE x_total counter',
      'x_total{a="1",b="say \\"hi\\""} 3',
      'x_total 4',
      'x_total_other{a="1"} 9',
      'y_seconds_sum{controller="machine"} 0.75',
      'y_seconds_count{controller="machine"} 2',
    ].join('\n');
    expect(samplesOf(text, 'x_total')).toEqual([
      { labels: { a: '1', b: 'say "hi"' }, value: 3 },
      { labels: {}, value: 4 },
    ]);
    expect(samplesOf(text, 'y_seconds_sum')).toEqual([{ labels: { controller: 'machine' }, value: 0.75 }]);
  });

  it('a phase is the difference of two readings', () => {
    expect(
      countsDelta({ 'create /events': 4, 'patch x/y': 2 }, { 'create /events': 9, 'patch x/y': 2, 'delete x/y': 1 }),
    ).toEqual({ 'create /events': 5, 'delete x/y': 1 });
  });
});
