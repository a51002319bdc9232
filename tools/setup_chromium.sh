#!/usr/bin/env bash
# Installs what the dashboard's browser test needs: Debian's headless Chromium and its
# WebDriver (chromium, chromium-driver) and wget (the KubeRay probe tests run KubeRay's exact
# wget commands). Called by `./dev test`; safe to run again (does nothing when all are there).
# Without root or apt it says why and exits 0: those tests then skip with the same reason.
set -uo pipefail
missing=()
command -v chromium >/dev/null || missing+=(chromium)
command -v chromedriver >/dev/null || missing+=(chromium-driver)
command -v wget >/dev/null || missing+=(wget)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
  echo "setup_chromium: cannot install ${missing[*]} (needs root and apt-get); the browser and probe tests will skip" >&2
  exit 0
fi
echo "setup_chromium: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# another apt run on the machine holds the lock for a while: wait for it rather than fail
apt-get -o DPkg::Lock::Timeout=600 update -qq \
  && apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
  || echo "setup_chromium: apt-get could not install ${missing[*]}; the browser and probe tests will skip" >&2
exit 0
