// metav1.Time on the wire (k8s.io/apimachinery/pkg/apis/meta/v1/time.go): RFC 3339 in UTC, whole seconds.

/** "2026-01-01T00:00:00Z" for a Date or epoch milliseconds (sub-second digits dropped, as metav1.Time marshals). */
export const formatTime = (t: Date | number): string => new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');
