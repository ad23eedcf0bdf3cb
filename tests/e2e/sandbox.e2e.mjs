// The sandbox page: it opens on a working scenario, the form adds a flow, the chart is drawn.
import { expect, outPath } from "./harness.mjs";

const text = (page, id) => page.getByTestId(id).textContent();

export const tests = [
  {
    name: "opens on a running scenario, adds a flow through the form",
    timeoutMs: 60_000,
    async run(page, base) {
      await page.goto(base);
      await page.getByTestId("flow-count").waitFor();
      const before = Number(await text(page, "flow-count"));
      expect(before > 0, `default scenario has flows (got ${before})`);
      const t0 = await text(page, "sim-time");

      await page.getByTestId("flow-src").fill("192.168.7.9");
      await page.getByTestId("flow-dst").fill("10.1.2.3");
      await page.getByTestId("flow-sport").fill("51515");
      await page.getByTestId("flow-dport").fill("443");
      await page.getByTestId("flow-proto").selectOption("udp");
      await page.getByTestId("flow-submit").click();
      await page.waitForFunction(
        (n) => Number(document.querySelector('[data-testid="flow-count"]').textContent) === n + 1,
        before,
      );
      await page.waitForFunction(
        (t) => document.querySelector('[data-testid="sim-time"]').textContent !== t,
        t0,
      );
      expect((await page.getByTestId("error-banner").count()) === 0, "no error banner after a valid flow");

      // The chart canvas has been drawn (not blank white).
      const inked = await page.getByTestId("chart-rxq").evaluate((c) => {
        const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let i = 0; i < d.length; i += 4) if (d[i] < 200 || d[i + 1] < 200 || d[i + 2] < 200) n++;
        return n;
      });
      expect(inked > 500, `chart has ink (${inked} dark pixels)`);
      await page.screenshot({ path: await outPath("sandbox.png"), fullPage: true });
    },
  },
  {
    name: "a bad address is named beside its field; a key the host refuses shows the error banner; nothing changes",
    timeoutMs: 30_000,
    async run(page, base) {
      await page.goto(base);
      await page.getByTestId("flow-count").waitFor();
      const before = await text(page, "flow-count");
      await page.getByTestId("flow-src").fill("10.0.0.300");
      await page.getByTestId("flow-submit").click();
      await page.getByTestId("flow-src-error").waitFor();
      expect((await text(page, "flow-src-error")).includes("source"), "the error names the field");
      // Each field is good, the pair is not (IPv4 to IPv6): the host refuses it.
      await page.getByTestId("flow-src").fill("10.0.0.3");
      await page.getByTestId("flow-dst").fill("fd00::1");
      await page.getByTestId("flow-submit").click();
      await page.getByTestId("error-banner").waitFor();
      expect((await text(page, "error-banner")).includes("IPv4"), `the banner says why: ${await text(page, "error-banner")}`);
      expect((await text(page, "flow-count")) === before, "flow count unchanged");
    },
  },
];
