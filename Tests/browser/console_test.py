"""The technicians' console in a real browser: Debian's chromium, headless, driven by Selenium through
Debian's chromedriver (nothing is downloaded: the paths are given, Selenium Manager is kept offline).

Run by Tests/EndToEndTests/ConsoleBrowserTests.swift (part of `make test`) against a real lastsetd whose
devices are lastset-sim presses on 127.0.0.1: press-a configured, press-b and press-c (polled) blank. The daemon is in a
fleet whose hub holds another host's (line-z's) version of page `cooling`, captured against another definition. The
environment names the console's URL, an operator's and a viewer's token, and where screenshots go.
"""
import http.server
import json
import os
import struct
import subprocess
import threading
import time
import unittest
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

URL = os.environ["LASTSET_URL"].rstrip("/")
OPERATOR = os.environ["LASTSET_OPERATOR_TOKEN"]
VIEWER = os.environ["LASTSET_VIEWER_TOKEN"]
APPROVER = os.environ["LASTSET_APPROVER_TOKEN"]
APPROVER_NAME = os.environ.get("LASTSET_APPROVER_NAME", "bea")
OPERATOR_NAME = os.environ.get("LASTSET_OPERATOR_NAME", "olga")
PRESS_B = os.environ["LASTSET_PRESS_B_ENDPOINT"]  # press-b's tcp://host:port, for an ad-hoc target
PRESS_C = os.environ["LASTSET_PRESS_C_ENDPOINT"]  # press-c's tcp://host:port (blank, polled: apply all)
PRESS_A = os.environ["LASTSET_PRESS_A_ENDPOINT"]  # press-a's tcp://host:port (configured; captured from)
PRESS_D = os.environ["LASTSET_PRESS_D_ENDPOINT"]  # press-d's tcp://host:port (backed up every second)
SHOTS = os.environ["LASTSET_SCREENSHOTS"]
CHROMIUM = os.environ.get("LASTSET_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("LASTSET_CHROMEDRIVER", "/usr/bin/chromedriver")

driver = None


def setUpModule():
    global driver
    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager must never fetch a browser or a driver
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.access(path, os.X_OK):
            raise RuntimeError(f"{path} is missing: scripts/setup.sh installs chromium and chromium-driver")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,800", "--no-first-run", "--disable-extensions", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--metrics-recording-only", "--lang=en-GB"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_script_timeout(20)


def tearDownModule():
    if driver:
        driver.quit()


def api(method, path, token=OPERATOR, body=None, headers=None):
    """The API outside the browser (urllib): status and decoded body."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(URL + path, data=data, method=method)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    for k, v in (headers or {}).items():
        request.add_header(k, v)
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def mbpoll_write(endpoint, address, value):
    """Writes one holding register with mbpoll (an independent client, as a technician with a laptop would)."""
    port = endpoint.rsplit(":", 1)[1]
    subprocess.run(["mbpoll", "-m", "tcp", "-a", "1", "-r", str(address + 1), "-t", "4", "127.0.0.1", "-p", port,
                    str(value)], check=True, capture_output=True, timeout=10)


def ensure_motion_template():
    """The whole-machine apply needs a template of every page: motion is captured from press-a (outside the
    browser, once)."""
    status, pages = api("GET", "/v1/pages")
    assert status == 200, pages
    if not any(p["id"] == "motion" and p.get("latestVersion") for p in pages):
        status, job = api("POST", "/v1/pages/motion/capture?wait=1", body={"device": "press-a"})
        assert status == 200 and job.get("capture"), job


class Console(unittest.TestCase):
    """Each test starts signed out on a fresh page."""

    def setUp(self):
        self.started = time.monotonic()
        driver.delete_all_cookies()
        driver.get(URL + "/")
        # Views re-render (devices every 5 s, tables after a filter): an element found a moment ago may be replaced.
        self.wait = WebDriverWait(driver, 20, ignored_exceptions=(StaleElementReferenceException,))
        self.wait.until(lambda d: d.execute_script("return document.body.dataset.ready === 'true'"))
        driver.get_log("browser")  # start each test with an empty console log
        driver.get_log("performance")

    def tearDown(self):
        print(f"  {self._testMethodName}: {time.monotonic() - self.started:.1f} s", flush=True)

    def shot(self, name):
        print(f"    {time.monotonic() - self.started:.1f} s: {name}", flush=True)
        os.makedirs(SHOTS, exist_ok=True)
        # The whole page, not just the first screen: grow the window to the content for the picture.
        height = driver.execute_script("return document.documentElement.scrollHeight")
        driver.set_window_size(1280, min(max(800, height + 150), 3000))
        time.sleep(0.2)  # let the new layout settle for the picture (not a readiness wait)
        driver.save_screenshot(os.path.join(SHOTS, name))
        driver.set_window_size(1280, 800)

    def visible(self, css):
        return self.wait.until(EC.visibility_of_element_located((By.CSS_SELECTOR, css)))

    def text_of(self, css):
        """The text of the element `css` finds, read again if the view re-rendered it meanwhile (the devices view
        re-renders on the daemon's events)."""
        return self.wait.until(lambda d: d.find_element(By.CSS_SELECTOR, css).text)

    def gone(self, css):
        return self.wait.until(EC.invisibility_of_element_located((By.CSS_SELECTOR, css)))

    def sign_in(self, token, keyboard=False):
        field = self.visible("#token")
        field.clear()
        if keyboard:
            field.send_keys(token + Keys.ENTER)  # the form works without a pointer
        else:
            field.send_keys(token)
            driver.find_element(By.CSS_SELECTOR, "#signin-form button[type=submit]").click()

    def view(self, name):
        driver.find_element(By.CSS_SELECTOR, f'#nav button[data-view="{name}"]').click()

    def confirm(self):
        dialog = self.visible("dialog#confirm")
        return dialog

    def console_errors(self, allow=()):
        """Errors the page logged (SEVERE), except messages containing one of `allow`."""
        return [e for e in driver.get_log("browser")
                if e["level"] == "SEVERE" and not any(a in e["message"] for a in allow)]

    def fetch(self, method, path, body=None, csrf=True):
        """fetch() from inside the page, as its own script would (the session cookie goes along)."""
        return driver.execute_async_script(
            """
            const [method, path, body, csrf, done] = arguments;
            (async () => {
              const headers = {'Content-Type': 'application/json'};
              if (csrf) {
                const s = await (await fetch('/v1/session')).json();
                headers['X-CSRF-Token'] = s.csrfToken;
              }
              const r = await fetch(path, {method, headers, body: body === null ? undefined : JSON.stringify(body)});
              done({status: r.status, body: await r.json()});
            })().catch(e => done({status: -1, body: String(e)}));
            """, method, path, body, csrf)

    # --- the tests, in order (unittest sorts by name) -------------------------------------------------

    def test_1_wrong_token_is_refused(self):
        self.sign_in("not-a-token-0123456789")
        error = self.wait.until(EC.text_to_be_present_in_element((By.ID, "signin-error"), "not valid"))
        self.assertTrue(error)
        self.assertFalse(driver.find_element(By.ID, "nav").is_displayed())
        self.assertIsNone(driver.get_cookie("lastset_session"))
        self.shot("sign-in-refused.png")
        # The one error logged is the refused sign-in itself (401).
        self.assertEqual(self.console_errors(allow=("/v1/session",)), [])

    def test_2_operator_captures_sees_the_diff_applies_and_every_register_verifies(self):
        self.sign_in(OPERATOR, keyboard=True)
        self.visible("article.device[data-device='press-a']")
        self.wait.until(EC.text_to_be_present_in_element((By.ID, "role"), "operator"))
        self.visible("article.device[data-device='press-a'] td.value")
        self.shot("devices.png")

        self.view("capture")
        Select(self.visible("#cap-page")).select_by_value("heating")
        Select(self.visible("#cap-device")).select_by_value("press-a")
        self.visible("#capture-button").click()
        dialog = self.confirm()
        self.assertIn("press-a", dialog.text)
        self.shot("capture-confirm.png")
        driver.find_element(By.ID, "confirm-ok").click()
        result = self.visible("#capture-result")
        self.wait.until(EC.text_to_be_present_in_element((By.ID, "capture-result"), "Archived heating v"))
        version = int(result.get_attribute("data-version"))
        skipped = driver.find_element(By.ID, "capture-out").text
        for why in ("still at its \"not set\" default", "not cloned", "read-only"):
            self.assertIn(why, skipped)
        self.shot("capture.png")

        self.view("templates")
        self.visible("#template-entries tr[data-register='heating.setpoint']")
        setpoint = driver.find_element(By.CSS_SELECTOR, "#template-entries tr[data-register='heating.setpoint'] td.value")
        self.assertEqual(setpoint.text, "-15.0 °C")  # scaled with its unit: raw -150, scale 0.1
        self.shot("template.png")
        driver.find_element(By.ID, "raw").click()
        self.wait.until(EC.text_to_be_present_in_element(
            (By.CSS_SELECTOR, "#template-entries tr[data-register='heating.setpoint'] td.value"), "-150 [FF6A]"))
        driver.find_element(By.ID, "raw").click()

        self.view("apply")
        Select(self.visible("#apply-page")).select_by_value("heating")
        Select(self.visible("#apply-device")).select_by_value("press-b")
        self.assertEqual(driver.find_elements(By.ID, "apply-button"), [])  # never before a dry run
        self.visible("#dry-run-button").click()
        self.visible("#diff")
        rows = driver.find_elements(By.CSS_SELECTOR, "#diff tbody tr")
        self.assertGreater(len(rows), 0)
        self.assertEqual({r.get_attribute("data-status") for r in rows}, {"differs"})
        self.assertIn("match", driver.find_element(By.ID, "identity").text)
        self.assertIn("not set", driver.find_element(By.ID, "diff").text)
        self.shot("dry-run.png")

        self.visible("#apply-button").click()
        dialog = self.confirm()
        self.assertIn("press-b", dialog.text)
        self.assertIn("model = “PRS-200”", dialog.text)
        self.shot("apply-confirm.png")
        driver.find_element(By.ID, "confirm-ok").click()
        self.wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#apply-status[data-status='succeeded']")
                        or d.find_elements(By.CSS_SELECTOR, "#apply-status[data-status='failed']"))
        self.assertEqual(driver.find_element(By.ID, "apply-status").get_attribute("data-status"), "succeeded")
        results = driver.find_elements(By.CSS_SELECTOR, "#results tbody tr")
        self.assertEqual(len(results), len(rows))
        self.assertEqual({r.get_attribute("data-status") for r in results}, {"verified"})
        # The result names its audit job and links its certificate: the job the audit log's replay record carries.
        applied_job = driver.find_element(By.CSS_SELECTOR, "#view .certificate").get_attribute("data-job")
        self.assertIn(applied_job, driver.find_element(By.ID, "apply-audit-job").text)
        self.shot("apply-result.png")

        self.view("audit")
        self.visible("#audit-table")
        Select(driver.find_element(By.ID, "audit-device")).select_by_value("press-b")
        driver.find_element(By.CSS_SELECTOR, "#audit-filter button[type=submit]").click()
        self.wait.until(lambda d: all(r.get_attribute("data-kind") != "capture"
                                      for r in d.find_elements(By.CSS_SELECTOR, "#audit-table tbody tr")))
        kinds = [r.get_attribute("data-kind") for r in driver.find_elements(By.CSS_SELECTOR, "#audit-table tbody tr")]
        self.assertEqual(kinds[:2], ["replay", "dry-run"])
        whos = {r.get_attribute("data-who") for r in driver.find_elements(By.CSS_SELECTOR, "#audit-table tbody tr")}
        self.assertEqual(whos, {f"token:{OPERATOR_NAME}"})
        self.shot("audit.png")
        # The replay's hand-over certificate, downloaded with the session as its link would: the page and its signature.
        self.assertEqual(driver.find_element(By.CSS_SELECTOR, "#audit-table tbody tr[data-kind=replay] .certificate")
                         .get_attribute("data-job"), applied_job)
        links = driver.find_elements(By.CSS_SELECTOR, "#audit-table tbody tr[data-kind=replay] .certificate a")
        self.assertEqual([a.get_attribute("data-format") for a in links[:4]], ["pdf", "pdf.sig", "html", "html.sig"])
        expected_starts = ["%PDF-", "-----BEGIN SSH SIGNATURE-----", "Hand-over certificate", "-----BEGIN SSH SIGNATURE-----"]
        for link, expected in zip(links[:4], expected_starts):
            got = driver.execute_async_script(
                "const [url, done] = arguments; fetch(url).then(async r => done([r.status, await r.text()]), e => done([-1, String(e)]));",
                link.get_attribute("href"))
            self.assertEqual(got[0], 200, got[1][:200])
            self.assertIn(expected, got[1])
        self.assertEqual(self.console_errors(), [])
        # What the page showed is what the archive holds (the caller's Swift test checks press-b with mbpoll).
        status, template = api("GET", f"/v1/pages/heating/templates/{version}")
        self.assertEqual(status, 200)
        self.assertEqual(template["capturedBy"], f"token:{OPERATOR_NAME}")

    def test_3_cross_origin_post_is_refused(self):
        self.sign_in(OPERATOR)
        self.visible("article.device")
        # press-d's scheduled backups are jobs too: only the others are counted.
        before = [j for j in api("GET", "/v1/jobs")[1] if j["kind"] != "backup"]
        # Another origin on the same host (same site: the SameSite=Strict cookie is sent; the Origin check refuses).
        page = f"""<!doctype html><title>evil</title><script>
          fetch('{URL}/v1/pages/heating/capture?wait=1', {{method: 'POST', mode: 'no-cors', credentials: 'include',
            headers: {{'Content-Type': 'text/plain'}}, body: JSON.stringify({{device: 'press-a'}})}})
            .then(() => document.title = 'sent', () => document.title = 'sent');
        </script>"""

        class Evil(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                body = page.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

            timeout = 5

        # Threaded: Chrome may open a speculative second connection that sends nothing; it must not block the page.
        with http.server.ThreadingHTTPServer(("127.0.0.1", 0), Evil) as evil:
            evil.daemon_threads = True
            threading.Thread(target=evil.serve_forever, daemon=True).start()
            evil_origin = f"http://127.0.0.1:{evil.server_address[1]}"
            driver.get(evil_origin + "/")
            self.wait.until(lambda d: d.title == "sent")
            evil.shutdown()
        # The browser did send it, and lastsetd answered 403 (seen in the browser's own network log).
        answered = []
        for entry in driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message.get("method") == "Network.responseReceived":
                response = message["params"]["response"]
                if "/v1/pages/heating/capture" in response["url"]:
                    answered.append(response["status"])
        self.assertEqual(answered, [403])
        after = [j for j in api("GET", "/v1/jobs")[1] if j["kind"] != "backup"]
        self.assertEqual(len(after), len(before), "a cross-origin POST started a job")
        # The same request with the browser's own session cookie, outside the browser: 403 forbidden_origin.
        cookie = driver.get_cookie("lastset_session")
        self.assertTrue(cookie["httpOnly"])
        self.assertEqual(cookie["sameSite"], "Strict")
        status, body = api("POST", "/v1/pages/heating/capture?wait=1", token=None, body={"device": "press-a"},
                           headers={"Cookie": f"lastset_session={cookie['value']}", "Origin": evil_origin})
        self.assertEqual((status, body["error"]["code"]), (403, "forbidden_origin"))

    def test_4_viewer_has_no_capture_nor_apply_and_a_forced_post_gets_403(self):
        self.sign_in(VIEWER)
        self.wait.until(EC.text_to_be_present_in_element((By.ID, "role"), "viewer"))
        self.view("capture")
        self.visible("#capture-denied")
        self.assertEqual(driver.find_elements(By.ID, "capture-button"), [])
        # Apply all pages: the viewer may run the whole-device dry run, but gets no button to write.
        ensure_motion_template()
        self.view("applyall")
        Select(self.visible("#all-device")).select_by_value("press-c")
        self.visible("#all-dry-run-button").click()
        self.wait.until(EC.text_to_be_present_in_element((By.ID, "all-out"), "Dry run"))
        self.assertEqual(self.visible("#all-dry-status").get_attribute("data-status"), "planned")
        self.visible("#apply-all-denied")
        self.assertEqual(driver.find_elements(By.ID, "apply-all-button"), [])
        self.view("devices")
        self.visible("article.device[data-device='press-c'] table.pages")
        self.assertEqual(driver.find_elements(By.CSS_SELECTOR, "button.apply-all"), [])

        self.view("apply")
        Select(self.visible("#apply-page")).select_by_value("heating")
        Select(self.visible("#apply-device")).select_by_value("press-b")
        self.visible("#dry-run-button").click()  # a viewer may dry-run
        self.visible("#diff")
        self.visible("#apply-denied")
        self.assertEqual(driver.find_elements(By.ID, "apply-button"), [])
        self.shot("viewer-apply.png")
        # An ad-hoc target (a machine not in the config): endpoint + unit, dry run only for a viewer.
        Select(driver.find_element(By.ID, "apply-target-kind")).select_by_value("endpoint")
        self.visible("#apply-endpoint").send_keys(PRESS_B)
        self.wait.until(EC.invisibility_of_element_located((By.ID, "diff")))  # the old dry run is discarded
        driver.find_element(By.ID, "dry-run-button").click()
        # press-b's machine by its endpoint: the target is press-b (its state, marks and audit are press-b's).
        self.wait.until(EC.text_to_be_present_in_element((By.ID, "apply-status"), "→ press-b"))
        self.assertEqual({r.get_attribute("data-status") for r in driver.find_elements(By.CSS_SELECTOR, "#diff tbody tr")},
                         {"unchanged"})
        self.assertEqual(driver.find_elements(By.ID, "apply-button"), [])
        self.assertEqual(self.console_errors(), [])
        # Forced: the page's own script, with the session's CSRF token, cannot do what the role does not allow.
        forced = self.fetch("POST", "/v1/pages/heating/apply?wait=1", {"device": "press-b"})
        self.assertEqual((forced["status"], forced["body"]["error"]["code"]), (403, "forbidden_role"))
        forced = self.fetch("POST", "/v1/pages/heating/capture?wait=1", {"device": "press-a"})
        self.assertEqual((forced["status"], forced["body"]["error"]["code"]), (403, "forbidden_role"))
        forced = self.fetch("POST", "/v1/devices/press-c/apply?wait=1", {})  # apply all pages, writing
        self.assertEqual((forced["status"], forced["body"]["error"]["code"]), (403, "forbidden_role"))
        # Without the CSRF token even an allowed change (a dry run) is refused.
        forced = self.fetch("POST", "/v1/pages/heating/apply?wait=1", {"device": "press-b", "dryRun": True}, csrf=False)
        self.assertEqual((forced["status"], forced["body"]["error"]["code"]), (403, "csrf_failed"))

    def test_5_sign_out_ends_the_session_on_the_server(self):
        self.sign_in(OPERATOR)
        self.visible("article.device")
        cookie = driver.get_cookie("lastset_session")["value"]
        status, _ = api("GET", "/v1/devices", token=None, headers={"Cookie": f"lastset_session={cookie}"})
        self.assertEqual(status, 200)
        driver.find_element(By.ID, "signout").click()
        self.visible("#token")
        self.wait.until(EC.text_to_be_present_in_element((By.ID, "signin-error"), "Signed out"))
        self.assertIsNone(driver.get_cookie("lastset_session"))
        # The old cookie, replayed from elsewhere, is dead: the server ended the session, not just the browser.
        status, body = api("GET", "/v1/devices", token=None, headers={"Cookie": f"lastset_session={cookie}"})
        self.assertEqual((status, body["error"]["code"]), (401, "unauthorized"))
        self.assertEqual(self.console_errors(), [])

    def test_6_operator_applies_every_page_to_a_blank_machine(self):
        ensure_motion_template()
        self.sign_in(OPERATOR)
        # From press-c's card on the devices view: never applied yet.
        card = "article.device[data-device='press-c']"
        self.visible(f"{card} tr[data-page='motion']")
        self.assertEqual(driver.find_element(By.CSS_SELECTOR, f"{card} tr[data-page='heating']").get_attribute("data-state"),
                         "unknown")
        self.visible(f"{card} button.apply-all").click()
        self.wait.until(lambda d: d.find_element(By.ID, "all-device").get_attribute("value") == "press-c")
        self.assertEqual(driver.find_elements(By.ID, "apply-all-button"), [])  # never before the dry run
        self.visible("#all-dry-run-button").click()
        self.visible("#all-dry-pages")
        pages = driver.find_elements(By.CSS_SELECTOR, "#all-dry-pages tbody tr")
        self.assertEqual([(p.get_attribute("data-page"), p.get_attribute("data-status")) for p in pages],
                         [("heating", "planned"), ("motion", "planned")])
        expected_rows = {}
        for page in ("heating", "motion"):
            self.assertIn("match", driver.find_element(By.ID, f"all-identity-{page}").text)
            rows = driver.find_elements(By.CSS_SELECTOR, f"#all-diff-{page} tbody tr")
            self.assertGreater(len(rows), 0)
            self.assertEqual({r.get_attribute("data-status") for r in rows}, {"differs"})
            expected_rows[page] = len(rows)
        self.shot("apply-all-dry-run.png")

        self.visible("#apply-all-button").click()
        dialog = self.confirm()
        for words in ("press-c", PRESS_C, "unit 1", "model = “PRS-200”", "heating v", "motion v"):
            self.assertIn(words, dialog.text)
        self.shot("apply-all-confirm.png")
        driver.find_element(By.ID, "confirm-ok").click()
        status = self.visible("#apply-all-status")
        self.assertEqual(status.get_attribute("data-status"), "succeeded", status.text)
        pages = driver.find_elements(By.CSS_SELECTOR, "#apply-all-pages tbody tr")
        self.assertEqual([(p.get_attribute("data-page"), p.get_attribute("data-status")) for p in pages],
                         [("heating", "succeeded"), ("motion", "succeeded")])
        for page, count in expected_rows.items():
            results = driver.find_elements(By.CSS_SELECTOR, f"#all-results-{page} tbody tr")
            self.assertEqual(len(results), count)
            self.assertEqual({r.get_attribute("data-status") for r in results}, {"verified"})
        self.shot("apply-all-result.png")

        # Someone changes a parameter on press-c by hand (mbpoll, outside Lastset): press-c is polled every
        # second, and the devices view shows the drift on exactly that register, expected vs live, since when.
        def press_c(states):
            status, body = api("GET", "/v1/conformance")
            return status == 200 and [c["state"] for c in body if c["device"] == "press-c"] == states
        mbpoll_write(PRESS_C, address=301, value=7)  # motion.accel: the template wrote 300
        self.wait.until(lambda _: press_c(["conforms", "drifted"]))
        self.view("devices")
        drifted = f"{card} tr[data-page='motion'][data-state='drifted']"
        self.visible(drifted)
        self.assertIn("motion.accel: expected 300, live 7", self.text_of(drifted))
        self.assertIn("since", self.text_of(drifted))
        self.assertEqual(self.wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, f"{drifted} ul.drift li"))), 1)
        self.shot("devices-drift.png")

        # Put back: the next poll finds both pages conforming to what was applied.
        mbpoll_write(PRESS_C, address=301, value=300)
        self.wait.until(lambda _: press_c(["conforms", "conforms"]))
        self.view("devices")
        for page in ("heating", "motion"):
            conforms = f"{card} tr[data-page='{page}'][data-state='conforms']"
            self.visible(conforms)
            self.assertIn("v", self.text_of(conforms))
            self.assertIn(f"token:{OPERATOR_NAME}", self.text_of(conforms))
        self.shot("devices-conformance.png")

        # Rollout of heating: press-b (the single-page apply) and press-c hold the latest; press-a and press-d (only
        # backed up) never applied.
        self.view("rollout")
        Select(self.visible("#rollout-page")).select_by_value("heating")
        self.visible("#rollout-table tr[data-device='press-c']")
        standings = {r.get_attribute("data-device"): r.get_attribute("data-standing")
                     for r in driver.find_elements(By.CSS_SELECTOR, "#rollout-table tbody tr")}
        self.assertEqual(standings, {"press-a": "neverApplied", "press-b": "latest", "press-c": "latest",
                                     "press-d": "neverApplied"})
        self.shot("rollout.png")
        self.assertEqual(self.console_errors(), [])

    def test_7_a_value_shows_the_digits_its_register_holds(self):
        """Issue 19, defect 16: a float is never rounded to its scale's decimals (f32 2.5 with `scale: 1`, as a
        vendor CSV's "Multiplier 1" gives, showed "3 K/min"); the console's own module, in the browser."""
        self.sign_in(OPERATOR)
        f32 = lambda x: struct.unpack("<f", struct.pack("<f", x))[0]
        cases = [
            (f32(2.5), {"type": "f32", "scale": 1, "unit": "K/min"}, "2.5 K/min"),
            (f32(2.5), {"type": "f32", "scale": 0.1}, "0.25"),
            (f32(21.5), {"type": "f32", "scale": 0.1}, "2.15"),
            (f32(20), {"type": "f32", "scale": 0.1}, "2.0"),
            (f32(0.1), {"type": "f32", "unit": "bar"}, "0.1 bar"),
            (0.1 + 0.2, {"type": "f64", "scale": 0.5}, "0.15"),
            (-150, {"type": "s16", "scale": 0.1, "unit": "°C"}, "-15.0 °C"),
            (7, {"type": "u16", "scale": 10}, "70"),
        ]
        got = driver.execute_async_script(
            """
            const [cases, done] = arguments;
            import('/js/format.js').then(m => done(cases.map(([v, reg]) => m.valueText(v, reg))))
              .catch(e => done(String(e)));
            """, [[v, reg] for v, reg, _ in cases])
        self.assertEqual(got, [want for _, _, want in cases])

        # The devices view (open since sign-in) follows the daemon's events: on a quiet system only GET /v1/devices
        # repeats, every 5 s (health and live values: each poll changes them and no event carries them); conformance,
        # identity and jobs are fetched again only on an event.
        self.visible("article.device[data-device='press-c'] .live")
        driver.get_log("performance")
        time.sleep(11)  # the quiet period is what is measured (not a readiness wait)
        urls = []
        for entry in driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message.get("method") == "Network.requestWillBeSent":
                urls.append(message["params"]["request"]["url"].replace(URL, ""))
        self.assertEqual(set(urls), {"/v1/devices"}, urls)
        self.assertIn(len(urls), (2, 3), urls)
        self.assertEqual(self.console_errors(), [])

    def test_8_a_page_defined_otherwise_in_the_fleet_is_flagged_and_the_fleets_definition_taken(self):
        """Page `cooling` here has a lower limit than the definition line-z's version was captured against: the
        templates view flags it with the register that differs; a viewer has no way to take it; an operator takes
        the fleet's definition (confirmed, with a reason), the flag goes, and the audit log has the step."""
        self.sign_in(VIEWER)
        self.visible("#nav")
        self.view("templates")
        Select(self.visible("#tpl-page")).select_by_value("cooling")
        self.visible("#fleet-definition")
        row = self.visible("#definition-differences tr[data-register='cooling.limit']")
        self.assertIn("line-z", row.text)
        self.assertIn("max", row.text)
        self.assertIn("40", row.text)
        self.assertIn("60", row.text)
        self.assertEqual(driver.find_elements(By.CSS_SELECTOR, "#take-definition"), [])
        driver.find_element(By.ID, "signout").click()

        self.sign_in(OPERATOR)
        self.visible("#nav")
        self.view("templates")
        Select(self.visible("#tpl-page")).select_by_value("cooling")
        self.visible("#take-definition")
        self.shot("fleet-definition.png")
        driver.find_element(By.ID, "take-definition").click()
        dialog = self.confirm()
        self.assertIn("line-z", dialog.text)
        self.visible("#take-reason").send_keys("line-z's map is the plant's")
        driver.find_element(By.ID, "confirm-ok").click()
        self.gone("#fleet-definition")
        status, health = api("GET", "/v1/health")
        self.assertEqual(status, 200)
        self.assertFalse(health["fleet"].get("differingPages"), health["fleet"])
        status, audit = api("GET", "/v1/audit?limit=5")
        self.assertEqual(status, 200)
        taken = [r for r in audit["records"] if r["kind"] == "page-definition"]
        self.assertEqual(len(taken), 1, audit)
        self.assertEqual(taken[0]["who"], f"token:{OPERATOR_NAME}")
        self.assertTrue(taken[0]["message"].endswith(": line-z's map is the plant's"), taken[0])
        self.assertEqual(self.console_errors(), [])

    def open_change(self, state):
        """Opens the newest change request, once the list shows it in `state`."""
        rows = self.wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, f"#changes tr[data-state='{state}'] button"))
        rows[-1].click()
        return self.visible("#change-diff")

    def request_change(self, reason):
        self.sign_in(OPERATOR)
        self.visible("#nav")
        self.view("changes")
        Select(self.visible("#change-page")).select_by_value("heating")
        Select(self.visible("#change-device")).select_by_value("press-b")
        self.visible("#change-reason").send_keys(reason)
        driver.find_element(By.ID, "change-request").click()
        self.visible("#change-diff")
        self.visible("#change-own")  # the requester sees no way to approve
        self.assertEqual(driver.find_elements(By.CSS_SELECTOR, "#change-sign"), [])

    def approve_change(self):
        driver.find_element(By.ID, "signout").click()
        self.sign_in(APPROVER)
        self.visible("#nav")
        self.view("changes")
        self.open_change("open")
        self.visible("#change-sign-reason").send_keys("checked against the recipe sheet")
        driver.find_element(By.ID, "change-sign").click()
        self.wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#changes tr[data-state='approved']"))
        self.wait.until(EC.text_to_be_present_in_element((By.ID, "change-signatures"), f"token:{APPROVER_NAME}"))

    def test_9_four_eyes_request_approve_stale_and_apply_with_the_diff_in_view(self):
        """Operator olga requests a change of heating on press-b (the diff in view) and cannot approve it; approver
        bea approves; mbpoll changes a target register (the setpoint); olga's apply is refused as stale, nothing written; requested
        and approved again, applied, every register verified; the audit keeps every signature."""
        self.request_change("recipe 7 for the new tool")
        self.shot("change-request.png")
        self.approve_change()
        self.shot("change-approve.png")
        driver.find_element(By.ID, "signout").click()
        mbpoll_write(PRESS_B, 101, 123)  # someone changes the setpoint on the machine itself (12.3 °C)
        self.sign_in(OPERATOR)
        self.visible("#nav")
        self.view("changes")
        self.open_change("approved")
        driver.find_element(By.ID, "change-apply").click()
        self.assertIn("press-b", self.confirm().text)
        driver.find_element(By.ID, "confirm-ok").click()
        self.wait.until(EC.text_to_be_present_in_element((By.ID, "change-out"), "stale_approval"))
        self.shot("change-stale.png")

        driver.find_element(By.ID, "signout").click()
        self.request_change("recipe 7, again")
        self.approve_change()
        driver.find_element(By.ID, "signout").click()
        self.sign_in(OPERATOR)
        self.visible("#nav")
        self.view("changes")
        self.open_change("approved")
        driver.find_element(By.ID, "change-apply").click()
        self.confirm()
        driver.find_element(By.ID, "confirm-ok").click()
        results = self.visible("#change-results")
        self.assertNotIn("mismatch", results.text)
        self.shot("change-apply.png")
        status, audit = api("GET", "/v1/audit?limit=20")
        self.assertEqual(status, 200)
        writes = [r for r in audit["records"] if r["kind"] == "replay" and r.get("changeRequest")]
        self.assertEqual([r["result"] for r in writes], ["refused", "succeeded"], writes)
        self.assertIn("stale approval", writes[0]["message"])
        self.assertEqual([a["who"] for a in writes[1]["approvals"]], [f"token:{OPERATOR_NAME}", f"token:{APPROVER_NAME}"])
        self.assertEqual([a["meaning"] for a in writes[1]["approvals"]], ["authorship", "approval"])
        self.assertEqual(self.console_errors(allow=("/apply",)), [])

    def test_9b_a_machine_back_at_factory_values_shows_a_banner_whose_restore_shows_the_dry_run_first(self):
        # press-c (replacement "notify") lost its motion parameters: every register back at its "not set" value
        # (u16 0xFFFF; s32 0x7FFFFFFF, big-endian words), as a power loss would leave a drive without its EEPROM.
        # (test_6 applied both pages to press-c; it conforms since.)
        # Meanwhile a later motion version is captured from press-a (accel 250): the latest, never applied to press-c.
        # The restore writes what press-c was last verified with (test_6's version), as the replacement policy would.
        status, before = api("GET", "/v1/devices/press-c")
        self.assertEqual(status, 200, before)
        verified = before["applied"]["motion"]["versionId"]
        mbpoll_write(PRESS_A, address=301, value=250)
        status, job = api("POST", "/v1/pages/motion/capture?wait=1", body={"device": "press-a"})
        self.assertEqual(status, 200, job)
        latest = job["capture"]["versionId"]
        self.assertNotEqual(latest, verified)
        for address, value in ((300, 65535), (301, 65535), (302, 32767), (303, 65535)):
            mbpoll_write(PRESS_C, address=address, value=value)
        self.sign_in(OPERATOR)
        banner = "#machine-banner [data-device='press-c'][data-kind='factoryReset']"
        self.visible(banner)
        self.assertIn("back at factory values (motion)", self.text_of(banner))
        self.shot("devices-reset-banner.png")

        # One click: the whole-machine apply opens on press-c with its dry run already shown; writing takes one more.
        # (A click on a banner the view re-rendered meanwhile is tried again on the new one.)
        self.wait.until(lambda d: d.find_element(By.CSS_SELECTOR, f"{banner} button.restore").click() or True)
        self.visible("#all-dry-pages")
        self.assertEqual(driver.find_element(By.ID, "all-device").get_attribute("value"), "press-c")
        pages = driver.find_elements(By.CSS_SELECTOR, "#all-dry-pages tbody tr")
        self.assertEqual([(p.get_attribute("data-page"), p.get_attribute("data-status")) for p in pages],
                         [("heating", "planned"), ("motion", "planned")])
        self.assertEqual({r.get_attribute("data-status") for r in driver.find_elements(By.CSS_SELECTOR, "#all-diff-motion tbody tr")},
                         {"differs"})
        # Which version per page and why: motion at the version last verified on press-c, not the latest.
        self.assertEqual(driver.find_element(By.ID, "all-versions").get_attribute("value"), "lastVerified")
        motion = driver.find_element(By.CSS_SELECTOR, "#all-dry-pages tr[data-page='motion']")
        self.assertEqual(motion.get_attribute("data-version"), verified)
        why = motion.find_element(By.CSS_SELECTOR, ".why")
        self.assertEqual(why.get_attribute("data-reason"), "lastVerified")
        self.assertIn(f"v{verified}: last verified on press-c", why.text)
        self.assertIn(f"the latest, v{latest}, is not what press-c was last verified with", why.text)
        self.shot("restore-dry-run.png")
        self.visible("#apply-all-button").click()
        self.confirm()
        driver.find_element(By.ID, "confirm-ok").click()
        status = self.visible("#apply-all-status")
        self.assertEqual(status.get_attribute("data-status"), "succeeded", status.text)
        motion = driver.find_element(By.CSS_SELECTOR, "#apply-all-pages tr[data-page='motion']")
        self.assertEqual((motion.get_attribute("data-status"), motion.get_attribute("data-version")), ("succeeded", verified))

        # The next poll finds press-c holding what was applied: the finding is resolved, the banner gone.
        self.view("devices")
        self.visible("article.device[data-device='press-c']")
        self.gone("#machine-banner [data-device='press-c']")
        self.assertEqual(self.console_errors(), [])

    def test_9c_the_as_found_history_shows_a_change_made_at_the_machine_by_nobody_lastset_knows(self):
        # press-d is backed up every second: its first record holds heating as found.
        self.sign_in(OPERATOR)
        self.view("asfound")
        self.assertEqual(Select(self.visible("#asfound-device")).first_selected_option.get_attribute("value"), "press-d")
        first = self.visible("#asfound-out article.record[data-number='1']")
        self.assertIn("First backup", first.text)
        # A technician changes the setpoint at the machine (mbpoll): the next backup keeps a record, the view shows it
        # on the daemon's `backup` event, credited to nobody Lastset knows.
        mbpoll_write(PRESS_D, address=101, value=230)
        change = self.visible("#asfound-out article.record[data-number='2'] tr[data-register='heating.setpoint']")
        self.assertEqual((change.get_attribute("data-kind"), change.get_attribute("data-by")), ("changed", "nobody"))
        self.assertIn("nobody Lastset knows", change.text)
        self.assertIn("23.0", change.text)  # 230 tenths of a degree
        # Every value of the record, on opening it.
        record = driver.find_element(By.CSS_SELECTOR, "#asfound-out article.record[data-number='2']")
        record.find_element(By.CSS_SELECTOR, "details summary").click()
        self.visible("#asfound-out article.record[data-number='2'] .values tr[data-register='heating.mode']")
        self.shot("as-found.png")
        # Back up now: nothing changed since, nothing kept.
        self.visible("#asfound-now").click()
        status = self.visible("#asfound-now-status[data-status]")
        self.assertEqual(status.get_attribute("data-status"), "succeeded", status.text)
        self.assertEqual(status.find_element(By.CSS_SELECTOR, "[data-page='heating']").get_attribute("data-outcome"), "unchanged")
        self.assertEqual(len(driver.find_elements(By.CSS_SELECTOR, "#asfound-out article.record[data-page='heating']")), 2)
        self.assertEqual(self.console_errors(), [])
        # A viewer sees the history, not the button.
        driver.find_element(By.ID, "signout").click()
        self.sign_in(VIEWER)
        self.view("asfound")
        self.visible("#asfound-out article.record[data-number='2']")
        self.assertEqual(driver.find_elements(By.ID, "asfound-now"), [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
