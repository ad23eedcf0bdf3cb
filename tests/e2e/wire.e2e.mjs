// The wire view: a small host's packets fly as dots from flow to NIC rule to queue to CPU;
// large hosts are drawn by density only.
import { expect, outPath } from "./harness.mjs";

/** Pixels of canvas `id` that differ between two snapshots taken `ms` apart (compared in the page). */
async function changedPixels(page, id, ms) {
  const canvas = page.getByTestId(id);
  await canvas.evaluate((c) => { window.__snap = c.getContext("2d").getImageData(0, 0, c.width, c.height).data; });
  await page.waitForTimeout(ms);
  return canvas.evaluate((c) => {
    const a = window.__snap, b = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < Math.min(a.length, b.length); i += 4) if (a[i] !== b[i] || a[i + 1] !== b[i + 1] || a[i + 2] !== b[i + 2]) n++;
    return n;
  });
}

/** Opens `lesson` and waits for its wire view. */
async function openWire(page, base, lesson) {
  await page.goto(`${base}?lesson=${lesson}`);
  const wire = page.getByTestId("wire");
  await wire.waitFor();
  return wire;
}

/** Clicks the wire view's row `i` (at the geometry the canvas states); the trace picks `flow`. */
async function clickRow(page, wire, i, flow) {
  const box = await wire.boundingBox();
  const [flowX, top, row] = (await wire.getAttribute("data-flow-rows")).split(" ").map(Number);
  await page.mouse.click(box.x + flowX, box.y + top + row * (i + 0.5));
  await page.waitForFunction((flow) => document.querySelector("[data-testid='trace-flow-select']")?.value === flow, String(flow));
}

export const tests = [
  {
    name: "wire view: packets move on a small host, stop when paused, a click on a flow traces it",
    timeoutMs: 60_000,
    async run(page, base) {
      const wire = await openWire(page, base, "rss-basics");
      const label = await wire.getAttribute("aria-label");
      expect(/13 flows, 13 through the indirection table/.test(label), `label counts flows: ${label}`);
      // The page opens playing.
      await page.waitForTimeout(1500);
      const moving = await changedPixels(page, "wire", 200);
      expect(moving > 50, `dots move while playing (${moving} pixels changed)`);
      await page.screenshot({ path: await outPath("wire-rss.png"), clip: await wire.boundingBox() });
      await page.getByTestId("pause").click();
      await page.waitForTimeout(1800); // every dot in flight arrives
      const still = await changedPixels(page, "wire", 300);
      expect(still === 0, `nothing moves once paused and arrived (${still} pixels changed)`);
      // Clicking a flow traces it (the third row).
      await clickRow(page, wire, 2, 2);
    },
  },
  {
    name: "wire view: a closed flow leaves the picture, a click still finds the flow it hits",
    timeoutMs: 60_000,
    async run(page, base) {
      const wire = await openWire(page, base, "rss-basics");
      await page.getByTestId("pause").click();
      const input = page.getByTestId("console-input");
      await input.fill("flow close 1");
      await input.press("Enter");
      await page.waitForFunction(() => /wire view: 12 flows/.test(document.querySelector("[data-testid='wire']").getAttribute("aria-label")));
      await input.fill("flow list");
      await input.press("Enter");
      await page.waitForFunction(() => /flow 1: tcp \S+ -> \S+ closed/.test(document.querySelector("[data-testid='console-output']").textContent));
      // The second row is now flow 2: the rows carry their flows' ids.
      await clickRow(page, wire, 1, 2);
    },
  },
  {
    name: "wire view: a small aRFS host's flows leave the indirection table for the filters",
    timeoutMs: 60_000,
    async run(page, base) {
      await openWire(page, base, "tc-bypass");
      // Paused while typing: RFS that steered a flow before aRFS was on would keep it steered
      // in software (set_rps_cpu only runs when the flow's CPU changes).
      await page.getByTestId("pause").click();
      const input = page.getByTestId("console-input");
      for (const cmd of ["ethtool -K eth0 ntuple on", "sysctl -w net.core.rps_sock_flow_entries=4096",
        "echo 512 > /sys/class/net/eth0/queues/rx-0/rps_flow_cnt", "echo 512 > /sys/class/net/eth0/queues/rx-1/rps_flow_cnt",
        "echo 512 > /sys/class/net/eth0/queues/rx-2/rps_flow_cnt", "echo 512 > /sys/class/net/eth0/queues/rx-3/rps_flow_cnt"]) {
        await input.fill(cmd);
        await input.press("Enter");
      }
      await page.getByTestId("play").click();
      await page.waitForFunction(() => /[1-9][0-9]* through exact-match filters/.test(document.querySelector("[data-testid='wire']").getAttribute("aria-label")), null, { timeout: 20_000 });
      await page.screenshot({ path: await outPath("wire-arfs.png"), clip: await page.getByTestId("wire").boundingBox() });
    },
  },
  {
    name: "wire view: absent on a large host (the host matrix instead)",
    timeoutMs: 60_000,
    async run(page, base) {
      await page.goto(`${base}?lesson=rfs-thread-churn`);
      await page.getByTestId("host-matrix").waitFor();
      expect((await page.getByTestId("wire").count()) === 0, "512 flows: no wire view");
    },
  },
];
