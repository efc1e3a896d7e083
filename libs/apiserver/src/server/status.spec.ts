import { invalid, notFound, statusObject, StatusError } from './status';
import { NOT_FOUND_TEXT, PathNotFound, unmatchedPath } from './notfound';

describe('Status as kube-apiserver writes it', () => {
  it('Go field order, metadata always, empty fields left out', () => {
    const s = notFound('example.com', 'widgets', 'w').toStatus();
    expect(JSON.stringify(s)).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"widgets.example.com \\"w\\" not found","reason":"NotFound","details":{"name":"w","group":"example.com","kind":"widgets"},"code":404}',
    );
    expect(statusObject({ status: 'Failure', message: 'boom', reason: '', code: 500 })).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'boom',
      code: 500,
    });
  });

  it('details keep {} when empty, drop an empty name and cause fields', () => {
    expect(new StatusError(404, 'x', 'NotFound', {}).toStatus().details).toEqual({});
    const bad = invalid('meta.k8s.io', 'PatchOptions', '', [
      { type: 'FieldValueRequired', field: 'fieldManager', message: 'Required value' },
    ]).toStatus();
    expect(bad.details).toEqual({
      group: 'meta.k8s.io',
      kind: 'PatchOptions',
      causes: [{ reason: 'FieldValueRequired', message: 'Required value', field: 'fieldManager' }],
    });
  });
});

describe('unmatchedPath', () => {
  it('a JSON NotFound under /api and the built-in groups, the plain-text 404 elsewhere', () => {
    expect((unmatchedPath(['api', 'v1', 'doodads']) as StatusError).toStatus()).toMatchObject({
      code: 404,
      details: {},
    });
    expect(unmatchedPath(['apis', 'coordination.k8s.io', 'v9'])).toBeInstanceOf(StatusError);
    for (const segs of [['apis', 'example.com', 'v1', 'doodads'], ['apis', 'nope.io'], ['foo']])
      expect(unmatchedPath(segs)).toBeInstanceOf(PathNotFound);
    expect(NOT_FOUND_TEXT).toBe('404 page not found\n');
  });
});
