"""How long a `tracectl timeline` page of a million-event trace takes to open and redraw in
headless Chromium.

Usage (from the repository root, after `swift build -c release --product tracectl`):
    python3 Benchmarks/timeline/timeline_load.py [CYCLES] [WORKDIR]

Records the demo's app running CYCLES times (default 11800: push Login, keyboard, background,
foreground, pop, keyboard, tabs, rotation, interruption, about 85 events each), draws its
timeline, then opens the page three times and prints, for each: the time until the page reported
itself drawn (navigation start to `window.timeline.ready`), the redraw at full zoom-out and a
redraw zoomed in 10×.
"""
import json
import os
import subprocess
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

cycles = int(sys.argv[1]) if len(sys.argv) > 1 else 11800
work = sys.argv[2] if len(sys.argv) > 2 else "/tmp/notifybus-timeline-bench"
os.makedirs(work, exist_ok=True)
tracectl = ".build/release/tracectl"

scenario = json.loads(subprocess.check_output([tracectl, "demo", "--print-scenario"]))
cycle = [{"push": "Login"}, {"keyboard": "show"}, {"keyboard": "hide"}, {"background": {}}, {"foreground": {}},
         {"pop": {}}, {"keyboard": "show"}, {"keyboard": "hide"}, {"selectTab": 1}, {"rotate": "landscapeLeft"},
         {"rotate": "portrait"}, {"selectTab": 0}, {"interrupt": {}}]
scenario["name"] = "timeline-bench"
scenario["steps"] = cycle * cycles
with open(f"{work}/bench.json", "w") as f:
    json.dump(scenario, f)
trace, page = f"{work}/bench.trace", f"{work}/bench.html"
print(subprocess.check_output([tracectl, "record", f"{work}/bench.json", "-o", trace], text=True).strip())
started = time.monotonic()
print(subprocess.check_output([tracectl, "timeline", trace, "-o", page], text=True).strip())
print("tracectl timeline: %.1f s, page %.1f MB" % (time.monotonic() - started, os.path.getsize(page) / 1e6))

options = webdriver.ChromeOptions()
for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,800"):
    options.add_argument(flag)
for run in range(3):
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        driver.get("file://" + page)
        ready = driver.execute_script(
            "return performance.getEntriesByType('navigation')[0].domInteractive")
        assert driver.execute_script("return window.timeline.ready")
        fit = driver.execute_script(
            "const t = performance.now(); document.getElementById('fit').click(); return performance.now() - t")
        zoomed = driver.execute_script(
            "for (let i = 0; i < 10; i++) document.getElementById('zoomIn').click();"
            "const t = performance.now(); document.getElementById('zoomIn').click(); return performance.now() - t")
        print("run %d: drawn %.2f s after navigation start; redraw %.0f ms at full zoom-out, %.0f ms zoomed in"
              % (run + 1, ready / 1000, fit, zoomed))
    finally:
        driver.quit()
