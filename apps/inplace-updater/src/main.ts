// Standalone reference in-place updater: `node main.js` (env HOST, PORT). Prints its URL and CA bundle.
import { startInPlaceUpdater } from '@capi/inplace-updater';

async function main(): Promise<void> {
  const port = Number(process.env.PORT ?? 0);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`invalid PORT ${JSON.stringify(process.env.PORT)}`);
  const updater = await startInPlaceUpdater({ host: process.env.HOST ?? '127.0.0.1', port });
  process.stdout.write(JSON.stringify({ url: updater.url, caBundle: updater.caBundle }) + '\n');
  const shutdown = () => void updater.stop().then(() => process.exit(0));
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

main().catch((e: unknown) => {
  process.stderr.write(`inplace-updater: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
