// The browser tests' static server (scripts/static-server.mjs) and Chromium launcher.
import { chromium } from "playwright-core";

export { serve } from "../../scripts/static-server.mjs";

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
