// Test-only preload (`node -r`): on SIGUSR2 it ends the manager the way no manager code path chooses to, so the
// process tests can check that exit reporting explains it. CAPI_TEST_CRASH: exception | rejection | exit.
const how = process.env.CAPI_TEST_CRASH;

process.on('SIGUSR2', () => {
  if (how === 'exception') throw new Error('test crash: uncaught exception');
  if (how === 'rejection') void Promise.reject(new Error('test crash: unhandled rejection'));
  if (how === 'exit') process.exit(7);
});

export {};
