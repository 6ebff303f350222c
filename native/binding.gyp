{
  'targets': [
    {
      'target_name': 'axpage_native',
      'dependencies': [
        "<!(node -p \"require('node-addon-api').targets\"):node_addon_api_except",
      ],
      'defines': ['NAPI_VERSION=8', 'NODE_ADDON_API_DISABLE_DEPRECATED'],
      'conditions': [
        ['OS=="linux"', {
          'sources': [
            'src/addon.cc',
            'src/capturer.cc',
            'src/display.cc',
            'src/grab.cc',
            'src/held.cc',
            'src/input-watch.cc',
            'src/journal.cc',
            'src/keyboard.cc',
            'src/pixels.cc',
            'src/root-property.cc',
            'src/shm.cc',
            'src/stacked.cc',
            'src/window-batch.cc',
            'src/windows.cc',
            'src/xerrors.cc',
            'src/xres.cc',
            'src/xwd.cc',
          ],
          'libraries': ['-lX11', '-lXext', '-lXtst', '-lXi', '-lxcb'],
          'cflags_cc': ['-O3', '-Wall', '-Wextra', '-Wno-unused-parameter'],
        }],
      ],
    },
  ],
}
