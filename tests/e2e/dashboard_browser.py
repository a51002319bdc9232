"""Reads beam's dashboard in a real headless Chromium (Selenium + Debian's chromedriver).

    python dashboard_browser.py URL EXPECT_JSON [SCREENSHOT]

Run by test_dashboard_browser.py on the head's host. Waits until the page shows what
EXPECT_JSON names (node IPs, a dead actor, a pending group), clicks the dead actor, waits for
its log tail, clicks the busy actor's Stack button, waits for its stack, and prints what the rendered DOM holds as one JSON line.
"""
import json
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

# The page re-renders its tables as the daemon's figures change, so an element found in one
# WebDriver call may be gone by the next (StaleElementReferenceException): each read and the
# click below is one script that runs inside the page, between two renders.
ROWS = """return Array.from(document.querySelectorAll('#' + arguments[0] + ' tbody tr'),
    tr => Array.from(tr.querySelectorAll('td'), td => td.innerText.trim()));"""
CLICK_ROW = """const tr = document.querySelector('#actors tbody tr[data-actor="' + arguments[0] + '"]');
if (tr) tr.click();
return tr !== null;"""
CLICK_STACK = """const b = document.querySelector('#actors button.stack[data-actor="' + arguments[0] + '"]');
if (b) b.click();
return b !== null;"""
TEXT = "const e = document.getElementById(arguments[0]); return e ? e.innerText : '';"


def rows(driver, table):
    return driver.execute_script(ROWS, table)


def text(driver, element_id):
    return driver.execute_script(TEXT, element_id)


def wait(what, check, within=60):  # generous: a loaded machine runs Chromium slowly
    deadline = time.monotonic() + within
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > deadline:
            raise SystemExit(f"the dashboard never showed {what}")
        time.sleep(0.2)


def main():
    url, expect = sys.argv[1], json.loads(sys.argv[2])
    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,1300"):
        options.add_argument(arg)
    options.binary_location = "/usr/bin/chromium"
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        driver.get(url)
        wait("both nodes", lambda: {r[0] for r in rows(driver, "nodes")} >= set(expect["ips"]))
        wait("the dead actor", lambda: any(r[1] == expect["dead"] and r[2] == "DEAD" for r in rows(driver, "actors")))
        wait("the pending group", lambda: any(r[0] == expect["pg"] for r in rows(driver, "pending")))
        wait("the long call", lambda: any(r[0] == expect["long_call"] and r[3].endswith("(long)")
                                          for r in rows(driver, "calls")))
        wait("the dead actor among the deaths", lambda: any(r[2] == expect["dead"] for r in rows(driver, "deaths")))
        # the worker's telemetry comes with its first sample (every 5 s), not with the node
        wait("the worker's sampled GPUs", lambda: any(r[0] == expect["ips"][1] and r[4] == expect["gpu_util"]
                                                      for r in rows(driver, "gpus")))
        wait("the dead actor's row to click", lambda: driver.execute_script(CLICK_ROW, expect["dead"]))

        def log_tail():
            shown = text(driver, "log")
            return shown if expect["log_line"] in shown and "(stderr)" in shown else None

        log = wait("the log tail", log_tail)
        wait("the busy actor's Stack button", lambda: driver.execute_script(CLICK_STACK, expect["stack_actor"]))

        def stack():
            shown = text(driver, "stack")
            return shown if expect["stack_line"] in shown else None

        shown_stack = wait("the actor's stack", stack)
        if len(sys.argv) > 3:
            driver.save_screenshot(sys.argv[3])
        print(json.dumps({"nodes": rows(driver, "nodes"), "gpus": rows(driver, "gpus"),
                          "actors": rows(driver, "actors"), "pending": rows(driver, "pending"),
                          "deaths": rows(driver, "deaths"), "calls": rows(driver, "calls"), "log": log,
                          "stack": shown_stack,
                          "html": driver.page_source}))
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
