export default async function globalTeardown() {
  await globalThis.__vozgateCluster?.stop();
}
