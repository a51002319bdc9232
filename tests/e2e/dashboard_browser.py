"""Reads beam's dashboard in a real headless Chromium (Selenium + Debian's chromedriver).

    python dashboard_browser.py URL EXPECT_JSON [SCREENSHOT]

Run by test_dashboard_browser.py on the head's host. Waits until the page shows what
EXPECT_JSON names (node IPs, a dead actor, a pending group), clicks the dead actor, waits for
its log tail, and prints what the rendered DOM holds as one JSON line.
"""
import json
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By


def rows(driver, table):
    return [[td.text for td in tr.find_elements(By.TAG_NAME, "td")]
            for tr in driver.find_elements(By.CSS_SELECTOR, f"#{table} tbody tr")]


def wait(what, check, within=30):
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
        dead_row = [tr for tr in driver.find_elements(By.CSS_SELECTOR, "#actors tbody tr")
                    if tr.get_attribute("data-actor") == expect["dead"]][0]
        dead_row.click()
        log = wait("the log tail", lambda: expect["log_line"] in driver.find_element(By.ID, "log").text
                   and driver.find_element(By.ID, "log").text)
        if len(sys.argv) > 3:
            driver.save_screenshot(sys.argv[3])
        print(json.dumps({"nodes": rows(driver, "nodes"), "gpus": rows(driver, "gpus"),
                          "actors": rows(driver, "actors"), "pending": rows(driver, "pending"),
                          "deaths": rows(driver, "deaths"), "log": log,
                          "html": driver.page_source}))
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
