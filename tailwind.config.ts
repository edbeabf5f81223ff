import type { Config } from 'tailwindcss'

export default {
  content: ['./app/**/*.{ts,tsx}'],
  theme: {
    extend: {
      colors: {
        brand: {
          50: '#eef6ff',
          100: '#d9eaff',
          500: '#2f6fdf',
          600: '#2159c2',
          700: '#1c479a',
          900: '#13284f',
        },
      },
    },
  },
  plugins: [],
} satisfies Config
