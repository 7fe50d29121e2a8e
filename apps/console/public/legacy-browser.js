// Only browsers without ES modules (old Internet Explorer) run this file; the console cannot start
// there, so the message lives here in both languages instead of in the locale files.
(() => {
  var text =
    '\u60a8\u7684\u6d4f\u89c8\u5668\u7248\u672c\u8fc7\u4f4e\uff0c\u8bf7\u4f7f\u7528\u65b0\u7248 Chrome\u3001Edge \u6216 Firefox \u8bbf\u95ee\u3002\n' +
    'Your browser is too old. Please use a recent Chrome, Edge or Firefox.';
  window.alert(text);
})();
