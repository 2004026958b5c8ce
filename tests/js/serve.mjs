// The browser tests' static server (bin/cli/static-server.mjs, the one the CLI serves the inspector
// with) and Chromium launcher.
import { chromium } from "playwright-core";

export { serve } from "../../bin/cli/static-server.mjs";

/** Debian's Chromium, headless, with background networking off (this machine has no internet). */
export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
