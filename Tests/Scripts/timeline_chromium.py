"""Opens a `tracectl timeline` page in headless Chromium (Debian's chromium and chromium-driver,
driven by selenium) and checks what it drew.

Usage: python3 timeline_chromium.py PAGE.html EXPECTED.json [--screenshot FILE.png]
       python3 timeline_chromium.py --check       exits 0 when selenium, chromium and chromedriver are here.

EXPECTED holds "lanes" (each {"label", "depth"}, in order), "findings" (how many; without it,
only loading, console and drawing are checked), "rules" (the finding rules the page must mark) and
the least numbers of observers, posts, deliveries and visible intervals that must be drawn, and
"view" (the seqs the page first shows, [from, to]), "steps" (labels the axis must show) and "rowLabels"
("Lane: message · kind" labels the observer rows must show). Prints every mismatch and exits 1 if any;
prints the load time in milliseconds on success.
"""
import json
import shutil
import sys
import time

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")

if sys.argv[1:] == ["--check"]:
    try:
        import selenium  # noqa: F401
    except ImportError:
        sys.exit("selenium is not installed")
    if not CHROMIUM or not DRIVER:
        sys.exit("chromium or chromedriver is not installed")
    sys.exit(0)

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

page, expected_path = sys.argv[1], sys.argv[2]
screenshot = sys.argv[sys.argv.index("--screenshot") + 1] if "--screenshot" in sys.argv else None
expected = json.load(open(expected_path, encoding="utf-8"))

options = webdriver.ChromeOptions()
options.binary_location = CHROMIUM
for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--window-size=1400,700", "--force-device-scale-factor=1"):
    options.add_argument(flag)
options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
driver = webdriver.Chrome(service=Service(DRIVER), options=options)
problems = []
try:
    started = time.monotonic()
    driver.get("file://" + page)
    WebDriverWait(driver, 60).until(lambda d: d.execute_script("return !!(window.timeline && window.timeline.ready)"))
    loaded_ms = (time.monotonic() - started) * 1000

    # Nothing fetched, nothing failed.
    for entry in driver.get_log("browser"):
        if entry["level"] in ("SEVERE", "WARNING"):
            problems.append("console: " + entry["message"])
    resources = driver.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name)")
    if resources:
        problems.append("the page fetched: %s" % resources)

    state = driver.execute_script("return window.timeline")
    lanes = [{"label": lane["label"], "depth": lane["depth"]} for lane in state["lanes"]]
    if "view" in expected and state["view"] != expected["view"]:
        problems.append("view: %s, expected %s" % (state["view"], expected["view"]))
    if "lanes" in expected and lanes != expected["lanes"]:
        problems.append("lanes: %s, expected %s" % (lanes, expected["lanes"]))
    drawn = state["drawn"]
    if "findings" not in expected:
        expected["findings"] = state["findings"]
        expected["rules"] = sorted({m["rule"] for m in state["markers"]})
        drawn["findings"] = state["findings"]
    if state["findings"] != expected["findings"]:
        problems.append("findings: %d, expected %d" % (state["findings"], expected["findings"]))
    if drawn["findings"] != expected["findings"]:
        problems.append("finding markers drawn: %d, expected %d" % (drawn["findings"], expected["findings"]))
    if drawn["observers"] < expected.get("minObservers", 1):
        problems.append("observer bars drawn: %d" % drawn["observers"])
    if drawn["visible"] < expected.get("minVisible", 1):
        problems.append("visible intervals drawn: %d" % drawn["visible"])
    if drawn["posts"] < expected.get("minPosts", 1) or drawn["deliveries"] < expected.get("minDeliveries", 1):
        problems.append("posts/deliveries drawn: %d/%d" % (drawn["posts"], drawn["deliveries"]))
    # Steps labelled on the axis, and each observer row labelled with its message and kind.
    for step in expected.get("steps", []):
        if step not in drawn["steps"]:
            problems.append("step %r not labelled on the axis: %s" % (step, drawn["steps"]))
    for label in expected.get("rowLabels", []):
        if label not in drawn["rowLabels"]:
            problems.append("row label %r not drawn: %s" % (label, drawn["rowLabels"]))
    marked = sorted({m["rule"] for m in state["markers"]})
    if marked != sorted(expected["rules"]):
        problems.append("marked rules: %s, expected %s" % (marked, sorted(expected["rules"])))

    # The findings panel lists each finding under its group.
    listed = driver.find_elements(By.CSS_SELECTOR, "#findings .finding")
    if len(listed) != state["listed"]:
        problems.append("findings listed: %d" % len(listed))
    groups = driver.find_elements(By.CSS_SELECTOR, "#findings .group")
    if "groups" in expected and len(groups) != expected["groups"]:
        problems.append("groups listed: %d, expected %d" % (len(groups), expected["groups"]))

    # Hovering a finding's marker shows its text.
    canvas = driver.find_element(By.ID, "canvas")
    if state["markers"]:
        marker = state["markers"][0]
        rect = driver.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.width, r.height]", canvas)
        ActionChains(driver).move_to_element_with_offset(
            canvas, int(marker["x"] - rect[0] / 2), int(marker["y"] - 4 - rect[1] / 2)).perform()
        # Zoomed out, markers may overlap: any of those under the pointer will do.
        near = {m["rule"] for m in state["markers"] if abs(m["x"] - marker["x"]) <= 7 and abs(m["y"] - marker["y"]) <= 9}
        tip = driver.find_element(By.ID, "tip")
        if not tip.is_displayed() or not any(rule in tip.text for rule in near):
            problems.append("hovering the %s marker shows %r" % (marker["rule"], tip.text))
        # Clicking keeps it in the details panel.
        ActionChains(driver).click().perform()
        text = driver.find_element(By.ID, "details").text
        if not any(rule in text for rule in near):
            problems.append("clicking the marker shows %r" % text)

    # Clicking a finding in the panel brings it into view and selects it.
    if listed:
        listed[-1].click()
        view = driver.execute_script("return window.timeline.view")
        rule = listed[-1].get_attribute("data-rule")
        if rule not in driver.find_element(By.ID, "details").text:
            problems.append("selecting %s from the list did not show it" % rule)
        if view[1] - view[0] <= 0:
            problems.append("view after selecting: %s" % view)

    # The finding colour is on the canvas: what the markers were drawn with is really there.
    red = driver.execute_script("""
        const c = document.getElementById('canvas'), x = c.getContext('2d');
        const d = x.getImageData(0, 0, c.width, c.height).data; let n = 0;
        for (let i = 0; i < d.length; i += 4) if (d[i] === 211 && d[i+1] === 47 && d[i+2] === 47) n++;
        return n""")
    if expected.get("errorMarkers") and red == 0:
        problems.append("no error-red pixels on the canvas")

    for entry in driver.get_log("browser"):
        if entry["level"] in ("SEVERE", "WARNING"):
            problems.append("console: " + entry["message"])
    if screenshot:
        driver.find_element(By.ID, "fit").click()
        driver.execute_script("document.querySelectorAll('.finding')[0].click()")
        driver.find_element(By.ID, "fit").click()
        driver.save_screenshot(screenshot)
finally:
    driver.quit()

for problem in problems:
    print(problem)
if not problems:
    print("loaded in %.0f ms" % loaded_ms)
sys.exit(1 if problems else 0)
