// "Your host": a newcomer pastes a real host's capture and their ss -tn output, builds, and
// reads where each flow lands. The page's answers must be the CLI's (`steerlab predict
// --json` on the same capture and flows): the same code, in the worker. Then 10,000 flows
// scroll and filter, a row marks its cell on the host, Play sends the flows, Share keeps the
// host.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, outPath } from "./harness.mjs";

const cli = process.env.STEERLAB_CLI ?? new URL("../../target/release/steerlab", import.meta.url).pathname;
const capturePath = new URL("../../crates/scenario/tests/fixtures/capture-ice.txt", import.meta.url).pathname;
const capture = readFileSync(capturePath, "utf8");
const text = (page, id) => page.getByTestId(id).first().textContent();

const ss = `$ ss -tn
State  Recv-Q Send-Q  Local Address:Port    Peer Address:Port  Process
ESTAB  0      0            10.0.0.2:443      203.0.113.7:40000
ESTAB  0      36           10.0.0.2:22      198.51.100.4:51234
ESTAB  0      0      [2001:db8::2]:443   [2001:db8::99]:40404
`;
const handWritten = "udp 198.51.100.9:5353 10.0.0.2:53\nudp 192.0.2.9:5353 10.0.0.2:53\n";

/** The CLI's predictions for `flows` on the fixture's host. */
function cliPredict(flows) {
  const dir = mkdtempSync(join(tmpdir(), "steerlab-"));
  writeFileSync(join(dir, "flows.txt"), flows);
  const out = execFileSync(cli, ["predict", capturePath, "--flows", join(dir, "flows.txt"), "--json"], { encoding: "utf8", maxBuffer: 64 << 20, stdio: ["ignore", "pipe", "ignore"] });
  return JSON.parse(out);
}

/** The table's rows now drawn, as the CLI's fields. */
async function rows(page) {
  return page.getByTestId("your-host-row").evaluateAll((trs) =>
    trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)),
  );
}

async function build(page, capture, flows) {
  await page.getByTestId("your-host-capture").fill(capture);
  await page.getByTestId("your-host-flows").fill(flows);
  await page.getByTestId("your-host-build").click();
}

export const tests = [
  {
    name: "a pasted capture and ss -tn output give the CLI's predictions, marked on the host and played",
    timeoutMs: 90_000,
    async run(page, base) {
      await page.setViewportSize({ width: 1440, height: 900 });
      await page.goto(base);
      await page.getByTestId("flow-count").waitFor();
      // The top bar's link brings the panel into view.
      // A line under the console until asked for; it opens the panel and brings it into view.
      expect((await page.getByTestId("your-host").count()) === 0, "the panel waits to be asked for");
      await page.getByTestId("open-your-host").click();
      await page.getByTestId("your-host-capture").waitFor();
      expect(await page.getByTestId("your-host-build").isDisabled(), "nothing to build before a capture is pasted");
      await build(page, capture, ss + handWritten);
      await page.getByTestId("your-host-results").waitFor();
      const want = cliPredict(ss + handWritten);
      expect(want.length === 5, `the CLI predicts 5 flows (got ${want.length})`);
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="your-host-row"]').length === 5);
      const got = await rows(page);
      want.forEach((w, i) => {
        const g = got[i];
        const rps = w.rps_cpu === null ? (w.rps === "off" ? "–" : w.rps) : String(w.rps_cpu);
        const expected = [w.flow, w.hash, w.fields, String(w.indir_index), String(w.queue), w.decided_by, String(w.irq_cpu), rps, w.history ?? ""];
        expect(JSON.stringify(g) === JSON.stringify(expected), `row ${i}: page ${JSON.stringify(g)} vs CLI ${JSON.stringify(expected)}`);
      });
      // ss's peer is the source: the rule on 10.0.0.2:443 decides the first flow.
      expect(got[0][5] === "ntuple:1023", `ss row decided by the rule (got ${got[0][5]})`);
      const summary = await text(page, "your-host-summary");
      expect(summary.includes("5 flows on 8 RX queues") && summary.includes("2 decided by ntuple rules"), summary);
      // The host is the captured one: its title, its queues, its flows.
      // (The predictions come as one message, the host's next view in another.)
      await page.waitForFunction(() => (document.querySelector(".lesson-head h2")?.textContent ?? "").includes("ens1f0"));
      const title = await page.locator(".lesson-head h2").first().textContent();
      expect(title.includes("8 queues") && title.includes("16 CPUs"), `lesson title ${title}`);
      expect(Number(await text(page, "flow-count")) === 5, `the host plays the 5 flows (flow-count ${await text(page, "flow-count")})`);
      // The teaser under the console gives way to the panel.
      expect((await page.getByTestId("open-your-host").count()) === 0, "no teaser once the panel is open");
      // What the capture did not say is listed.
      expect((await text(page, "your-host-assumptions")).includes("ens1f0 is eth0"), "assumptions listed");
      // A row marks its cell on the host picture.
      await page.getByTestId("your-host-row").nth(1).click();
      await page.waitForFunction(() => document.querySelector('[data-testid="your-host-row"].picked') !== null);
      // Time runs with the flows (the imported host's suggested length is a minute).
      expect((await page.getByTestId("run-ended").count()) === 0, "the host does not stop at once");
      const t0 = await text(page, "sim-time");
      await page.waitForFunction((t) => document.querySelector('[data-testid="sim-time"]').textContent !== t, t0);
      expect((await page.getByTestId("error-banner").count()) === 0, "no error banner");
      await page.getByTestId("your-host").scrollIntoViewIfNeeded();
      await page.screenshot({ path: await outPath("your-host-1440.png") });
      await page.setViewportSize({ width: 800, height: 900 });
      await page.getByTestId("your-host").scrollIntoViewIfNeeded();
      await page.screenshot({ path: await outPath("your-host-800.png") });
      const scrollX = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(scrollX <= 0, `no horizontal scroll at 800 px (${scrollX} px)`);
      // Share keeps the captured host: the link opens it again.
      await page.getByTestId("share-link").click();
      await page.waitForFunction(() => location.hash.startsWith("#s="));
      const link = await page.evaluate(() => location.href);
      await page.goto("about:blank");
      await page.goto(link);
      await page.waitForFunction(() => (document.querySelector(".lesson-head h2")?.textContent ?? "").includes("ens1f0"), null, { timeout: 30_000 });
      expect(Number(await text(page, "flow-count")) === 5, "the link's host has the 5 flows");
    },
  },
  {
    name: "10,000 flows: the table draws a window of rows, scrolls to the last, and a queue's bar filters it",
    timeoutMs: 120_000,
    async run(page, base) {
      await page.goto(base);
      await page.getByTestId("flow-count").waitFor();
      await page.getByTestId("open-your-host").click();
      let flows = "";
      for (let i = 0; i < 10_000; i++) flows += `tcp 198.18.${(i >> 8) & 255}.${i & 255}:${1024 + (i % 60000)} 10.0.0.2:8080\n`;
      // Both as files, the way a long list comes (the capture script's output, a saved ss).
      const dir = mkdtempSync(join(tmpdir(), "steerlab-"));
      writeFileSync(join(dir, "flows.txt"), flows);
      await page.getByTestId("your-host-file").setInputFiles(capturePath);
      await page.getByTestId("your-host-flows-file").setInputFiles(join(dir, "flows.txt"));
      await page.waitForFunction(() => document.querySelector('[data-testid="your-host-flows"]').value.length > 300_000);
      await page.getByTestId("your-host-build").click();
      await page.getByTestId("your-host-results").waitFor({ timeout: 60_000 });
      expect((await text(page, "your-host-summary")).includes("10000 flows"), await text(page, "your-host-summary"));
      const drawn = await page.getByTestId("your-host-row").count();
      expect(drawn > 10 && drawn < 80, `a window of rows is drawn, not 10,000 (${drawn})`);
      // Scrolled to the end, the last flow is drawn.
      await page.getByTestId("your-host-table").evaluate((el) => { el.scrollTop = el.scrollHeight; });
      await page.waitForFunction(() => {
        const r = [...document.querySelectorAll('[data-testid="your-host-row"] td:first-child')].map((td) => td.textContent);
        return r.includes("tcp 198.18.39.15:11023 10.0.0.2:8080");
      });
      // The CLI agrees on the last flow.
      const last = cliPredict("tcp 198.18.39.15:11023 10.0.0.2:8080\n")[0];
      const lastRow = (await rows(page)).find((r) => r[0] === last.flow);
      expect(lastRow[1] === last.hash && lastRow[4] === String(last.queue), `last row ${JSON.stringify(lastRow)} vs CLI ${JSON.stringify(last)}`);
      // Queue 6 has weight 0 in the table: its bar is empty; queue 2's bar lists only its flows.
      await page.getByTestId("your-host-queue").nth(2).click();
      await page.waitForFunction(() => document.querySelector('[data-testid="your-host-shown"]').textContent.includes("on rx-2"));
      const queues = (await rows(page)).map((r) => r[4]);
      expect(queues.length > 0 && queues.every((q) => q === "2"), `filtered to rx-2: ${queues.slice(0, 5)}`);
      const n = Number((await text(page, "your-host-shown")).split(" ")[0]);
      expect(n > 1000 && n < 2500, `rx-2 holds about 1/8 of the flows (weight 1 of 8): ${n}`);
      // 10,000 flows make a link too long to open again: Share says so and points at the download.
      await page.getByTestId("share-link").click();
      await page.getByTestId("error-banner").waitFor();
      expect((await text(page, "error-banner")).includes("download its scenario"), await text(page, "error-banner"));
    },
  },
  {
    name: "a pasted drop problem shows where its packets drop: the CLI's observations, each in its place",
    timeoutMs: 60_000,
    async run(page, base) {
      // The ice capture with a real ethtool -S (netdata#988: rx_missed_errors) and a real
      // softnet_stat (backlog drops) pasted after it, as a learner pastes what they have.
      const real = (name) => readFileSync(new URL(`../../crates/scenario/tests/fixtures/real/${name}`, import.meta.url).pathname, "utf8").split("\n").slice(1).join("\n");
      const pasted = `${capture}\n$ ethtool -S ens1f0\n${real("intel1g-stats-missed.txt")}\n$ cat /proc/net/softnet_stat\n${real("insights-softnet-drops.txt")}\n`;
      const dir = mkdtempSync(join(tmpdir(), "steerlab-"));
      writeFileSync(join(dir, "capture.txt"), pasted);
      const want = JSON.parse(execFileSync(cli, ["import", join(dir, "capture.txt"), "--json"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })).observed;
      expect(want.some((o) => o.place === "ring") && want.some((o) => o.place === "backlog"), `the CLI sees ring and backlog drops: ${JSON.stringify(want)}`);
      await page.goto(base);
      await page.getByTestId("flow-count").waitFor();
      await page.getByTestId("open-your-host").click();
      await build(page, pasted, "udp 198.51.100.9:5353 10.0.0.2:53\n");
      await page.getByTestId("your-host-observed").waitFor();
      const got = await page.getByTestId("your-host-observed").locator("li").evaluateAll((lis) => lis.map((li) => [li.className, li.textContent]));
      expect(got.length === want.length, `as many as the CLI's (${got.length} vs ${want.length})`);
      want.forEach((w, i) => {
        expect(got[i][0].includes(`observed-${w.place}`) && got[i][1].includes(w.text), `observation ${i}: page ${JSON.stringify(got[i])} vs CLI ${JSON.stringify(w)}`);
      });
      await page.getByTestId("your-host-observed").scrollIntoViewIfNeeded();
      await page.screenshot({ path: await outPath("your-host-observed-1440.png") });
    },
  },
  {
    name: "a broken capture is refused naming its line, and the host is untouched",
    timeoutMs: 60_000,
    async run(page, base) {
      await page.goto(base);
      await page.getByTestId("flow-count").waitFor();
      const before = await text(page, "flow-count");
      await page.getByTestId("open-your-host").click();
      const broken = capture.replace("   16:", "   17:");
      await build(page, broken, "");
      // Said beside the Build button, where the learner looks, with the line quoted; not in
      // the banner at the top of the page.
      await page.getByTestId("your-host-error").waitFor();
      const said = await text(page, "your-host-error");
      expect(/^capture: line \d+:/.test(said) && said.includes('(the line: "17:'), `the error names and quotes the line: ${said}`);
      const [buildBox, errorBox] = [await page.getByTestId("your-host-build").boundingBox(), await page.getByTestId("your-host-error").boundingBox()];
      expect(Math.abs(errorBox.y - (buildBox.y + buildBox.height)) < 80, `the error is beside the Build button (${JSON.stringify([buildBox, errorBox])})`);
      expect((await page.getByTestId("error-banner").count()) === 0, "no banner at the top");
      expect((await text(page, "flow-count")) === before, "the host is unchanged");
    },
  },
  {
    name: "a paste as people post it: the script to download, the paste kept in the browser, assumptions corrected, Share warns",
    timeoutMs: 60_000,
    async run(page, base) {
      await page.goto(base);
      await page.getByTestId("flow-count").waitFor();
      await page.getByTestId("open-your-host").click();
      // The capture script, offered as a download: the repository's own text.
      const link = page.getByTestId("your-host-script");
      expect((await link.getAttribute("download")) === "capture-host.sh", "a download named capture-host.sh");
      const script = await (await fetch(new URL(await link.getAttribute("href"), page.url()))).text();
      const ours = readFileSync(new URL("../../scripts/capture-host.sh", import.meta.url), "utf8");
      expect(script === ours, "the download is scripts/capture-host.sh");
      expect((await text(page, "your-host-private")).includes("never leaves this browser"), "the paste stays in the browser");
      // /proc/interrupts rows grep'd after a root prompt: 16 CPUs from the rows' counts, said
      // with the field that corrects it.
      const rows = readFileSync(new URL("../../crates/scenario/tests/fixtures/real/virtio-interrupts-rows.txt", import.meta.url), "utf8").split("\n").slice(1).join("\n");
      await build(page, `[root@guest ~]# cat /proc/interrupts | grep virtio5\n${rows}`, "tcp 203.0.113.7:40000 10.0.0.2:443\n");
      await page.getByTestId("your-host-results").waitFor();
      await page.waitForFunction(() => (document.querySelector(".lesson-head h2")?.textContent ?? "").includes("16 CPUs"));
      const fields = await page.locator('[data-testid="your-host-assumption"] code').allTextContents();
      expect(fields.includes("host.cpus=16"), `the CPU count is said with its field (${fields})`);
      await page.getByTestId("your-host-corrections").fill("host.cpus=32");
      await page.getByTestId("your-host-build").click();
      await page.waitForFunction(() => (document.querySelector(".lesson-head h2")?.textContent ?? "").includes("32 CPUs"));
      expect((await text(page, "your-host-assumptions")).includes("corrected: host.cpus=32"), "the correction is said");
      // Share keeps the host, and warns that the link carries its addresses and rules.
      expect((await text(page, "share-warning")).includes("addresses and rules"), "Share warns");
    },
  },
];
