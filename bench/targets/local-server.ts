/** The baselines' one way to listen: a port of its own on 127.0.0.1, and a close that ends every connection. */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

export async function listenLocally(server: Server): Promise<{ url: string; close: () => Promise<void> }> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
