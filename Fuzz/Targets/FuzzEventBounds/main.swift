import Foundation
import LibFuzzerDriver

// libFuzzer's own `main` is replaced by this executable's: hand the command line to its driver.
exit(attache_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv))
