import 'reflect-metadata';
import { Inject, Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { FeatureGateError, FeatureGates, featureGatesFromEnv, parseFeatureGateSpec } from './feature-gates';
import { FEATURE_GATES, FeatureGatesModule } from './feature-gates.module';

describe('FeatureGates', () => {
  it('defaults InPlaceUpdates and RuntimeSDK to false (alpha, as upstream)', () => {
    const g = FeatureGates.defaults();
    expect(g.enabled('InPlaceUpdates')).toBe(false);
    expect(g.enabled('RuntimeSDK')).toBe(false);
    expect(g.known.InPlaceUpdates.stage).toBe('Alpha');
    expect(g.enabled('MachinePool')).toBe(true);
  });

  it('parses "A=true,B=false" with spaces and empty parts', () => {
    const g = FeatureGates.parse(' InPlaceUpdates=true, RuntimeSDK=TRUE,,MachinePool=false ');
    expect(g.enabled('InPlaceUpdates')).toBe(true);
    expect(g.enabled('RuntimeSDK')).toBe(true);
    expect(g.enabled('MachinePool')).toBe(false);
    expect(g.enabled('ClusterTopology')).toBe(false);
  });

  it('rejects an unknown gate naming it', () => {
    expect(() => FeatureGates.parse('Bogus=true')).toThrow(FeatureGateError);
    expect(() => FeatureGates.parse('Bogus=true')).toThrow(/unrecognized feature gate: Bogus/);
  });

  it('rejects non-boolean values and missing values precisely', () => {
    expect(() => parseFeatureGateSpec('InPlaceUpdates=yes')).toThrow(
      'invalid value of InPlaceUpdates=yes, must be true or false',
    );
    expect(() => parseFeatureGateSpec('InPlaceUpdates')).toThrow(/missing bool value for InPlaceUpdates/);
    expect(() => parseFeatureGateSpec('InPlaceUpdates=')).toThrow(/invalid value of InPlaceUpdates=/);
  });

  it('refuses to change a gate locked to its default', () => {
    expect(() => FeatureGates.parse('ClusterResourceSet=false')).toThrow(/locked to true/);
    expect(FeatureGates.parse('ClusterResourceSet=true').enabled('ClusterResourceSet')).toBe(true);
  });

  it('enabled() throws for a gate that is not registered', () => {
    expect(() => FeatureGates.defaults().enabled('Nope')).toThrow(/not registered/);
  });

  it('flags win over env seeds', () => {
    const env = featureGatesFromEnv({ EXP_IN_PLACE_UPDATES: 'true', EXP_RUNTIME_SDK: 'true' });
    expect(env).toEqual({ InPlaceUpdates: true, RuntimeSDK: true });
    const g = FeatureGates.parse('InPlaceUpdates=false', undefined, env);
    expect(g.enabled('InPlaceUpdates')).toBe(false);
    expect(g.enabled('RuntimeSDK')).toBe(true);
  });

  it('rejects a non-boolean env variable naming it', () => {
    expect(() => featureGatesFromEnv({ EXP_RUNTIME_SDK: 'maybe' })).toThrow(/EXP_RUNTIME_SDK=maybe/);
  });

  it('round-trips through toString()', () => {
    const g = FeatureGates.parse('InPlaceUpdates=true');
    expect(FeatureGates.parse(g.toString()).toJSON()).toEqual(g.toJSON());
    expect(g.with({ RuntimeSDK: true }).toJSON()).toMatchObject({ InPlaceUpdates: true, RuntimeSDK: true });
  });
});

describe('FeatureGatesModule', () => {
  @Injectable()
  class NeedsGate {
    constructor(@Inject(FEATURE_GATES) readonly gates: FeatureGates) {}
    inPlace(): boolean {
      return this.gates.enabled('InPlaceUpdates');
    }
  }
  @Module({ providers: [NeedsGate], exports: [NeedsGate] })
  class ConsumerModule {}

  it.each([true, false])('a module sees the gate it was given (InPlaceUpdates=%s)', async (on) => {
    const ref = await Test.createTestingModule({
      imports: [FeatureGatesModule.forRoot(FeatureGates.parse(`InPlaceUpdates=${on}`)), ConsumerModule],
    }).compile();
    expect(ref.get(NeedsGate).inPlace()).toBe(on);
    expect(ref.get(FeatureGates).enabled('InPlaceUpdates')).toBe(on);
    await ref.close();
  });
});
