"""The JVM flags beam's Java runs with, the same for the CLI and the daemon.

A module of its own because two others read them: the launcher (launcher.py) puts them on
every command line, and the AOT cache (aotcache.py) is bound to them, since what a cache
holds depends on the flags it was trained under. packaging/build_bundle.sh and
bench/jvm_options.py read the list from this file's text.
"""

# Why each (measured in docs/PERFORMANCE.md, "JVM start-up options"): Serial GC and a small
# heap, since start-up garbage touches fresh pages of whatever young generation there is; C1
# only, compiling after 3x the usual invocation counts, since C2 and eager compiling during
# start-up leave compiler arenas and code behind at idle and C2's compile bursts show in the
# p99 of calls on 2 cores; the JDK's CDS, replaced by beam's AOT cache where one fits
# (launcher.jvm_flags). beam's own classes and the JDK's socket channels compile after 0.05x
# the usual counts (about 10 calls): at 3x a fresh daemon ran its first thousands of calls
# partly interpreted, and at 0.2x the call path's compiles still landed in a cold driver's
# first sync calls (their p99); a global 1x costs idle memory, while per method it costs none.
JVM_FLAGS = ["-XX:+UseSerialGC", "-Xms4m", "-Xmn1536k", "-XX:TieredStopAtLevel=1",
             "-XX:CompileThresholdScaling=3", "-XX:CompileCommand=quiet",
             "-XX:CompileCommand=CompileThresholdScaling,beam.*::*,0.05",
             "-XX:CompileCommand=CompileThresholdScaling,sun.nio.ch.*::*,0.05", "-Xshare:auto"]
# With a cache: compile at start-up, in the background, what the training run (tools/train_aot.py,
# a cold vLLM-shaped set-up) compiled, instead of when a user's first calls reach the thresholds:
# the compiles otherwise land in those calls' tail on a small machine (docs/PERFORMANCE.md, "Cold shape").
AOT_RUN_FLAGS = ["-XX:+UnlockExperimentalVMOptions", "-XX:+AOTCompileEagerly"]
