// mocha's spec reporter plus one closing line `N passed, N failed` that CI and .ci/run read.
const Mocha = require('mocha');

class TotalsReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once('end', () => {
      const { passes, failures, pending } = this.stats;
      process.stdout.write(
        `\n${passes} passed, ${failures} failed${pending ? `, ${pending} skipped` : ''}\n`,
      );
    });
  }
}

module.exports = TotalsReporter;
