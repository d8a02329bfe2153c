// `npm run test:cluster` (issue 23): the cluster tests start nats-server and Skein processes on
// 127.0.0.1; one file at a time, kept out of `npm test` (package.json's ava.files).
export default {
  files: ['dist/test/cluster/**/*.test.js'],
  timeout: '240s',
  workerThreads: false,
  concurrency: 1,
};
